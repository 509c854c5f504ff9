import type { FastifyRequest } from 'fastify';
import { appError } from '../../errors.ts';
import type { UploadedFile } from './service.ts';

/** Reads a multipart form (fields and `files` uploads); a JSON body is accepted as the fields. */
export async function readForm(
  request: FastifyRequest,
  options: { fileField?: string; maxFiles?: number } = {},
): Promise<{ fields: Record<string, unknown>; files: UploadedFile[] }> {
  const fileField = options.fileField ?? 'files';
  if (!request.isMultipart()) {
    const body = request.body;
    if (body && typeof body === 'object' && !Array.isArray(body))
      return { fields: body as Record<string, unknown>, files: [] };
    throw appError('MULTIPART_REQUIRED');
  }
  const fields: Record<string, unknown> = {};
  const files: UploadedFile[] = [];
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      const content = await part.toBuffer();
      if (part.fieldname !== fileField) throw appError('UNEXPECTED_FILE_FIELD', part.fieldname);
      files.push({ filename: part.filename, content });
      if (options.maxFiles !== undefined && files.length > options.maxFiles)
        throw appError('TOO_MANY_FILES', fileField, options.maxFiles);
    } else {
      // Busboy cuts a field at the body limit and says so: parsed as cut, it would pass for
      // malformed JSON ("must be a JSON string") rather than too large, as a JSON body is.
      if (part.valueTruncated)
        throw appError(
          'PAYLOAD_TOO_LARGE',
          `Request body is too large: form field "${part.fieldname}" exceeds the body limit`,
        );
      fields[part.fieldname] = part.value;
    }
  }
  return { fields, files };
}
