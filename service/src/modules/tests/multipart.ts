import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../errors.ts';
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
    throw badRequest('Expected multipart/form-data');
  }
  const fields: Record<string, unknown> = {};
  const files: UploadedFile[] = [];
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      const content = await part.toBuffer();
      if (part.fieldname !== fileField) throw badRequest(`Unexpected file field "${part.fieldname}"`);
      files.push({ filename: part.filename, content });
      if (options.maxFiles !== undefined && files.length > options.maxFiles)
        throw badRequest(`${fileField}: at most ${options.maxFiles} file per request`);
    } else {
      fields[part.fieldname] = part.value;
    }
  }
  return { fields, files };
}
