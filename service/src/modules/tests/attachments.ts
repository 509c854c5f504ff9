import { randomUUID } from 'node:crypto';
import type { BlobStore } from '../../adapters/blobs/index.ts';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { chunk } from '../../adapters/db/index.ts';
import { badRequest } from '../../errors.ts';

/** Files of tests and steps (`setInputFiles`): rows in `attachments`, contents in the blob store. */

type Executor = Db | Tx;

export interface UploadedFile {
  filename: string;
  content: Buffer;
}

const safeFilename = (filename: string) => {
  const base = filename.split(/[\\/]/).pop() ?? '';
  if (!base || base === '.' || base === '..' || base.length > 255)
    throw badRequest(`files: invalid file name "${filename}"`);
  return base;
};

/** Stores uploads as attachments of a test (same filename replaces the previous one). */
export async function storeAttachments(
  db: Executor,
  blobs: BlobStore,
  owner: { projectId: string; testId?: string | null; stepId?: string | null },
  files: UploadedFile[],
  now: string,
) {
  for (const file of files) {
    const filename = safeFilename(file.filename);
    const id = randomUUID();
    const blobKey = `attachments/${owner.projectId}/${id}`;
    await blobs.put(blobKey, file.content);
    let query = db
      .deleteFrom('attachments')
      .where('projectId', '=', owner.projectId)
      .where('filename', '=', filename);
    query = owner.testId
      ? query.where('testId', '=', owner.testId)
      : query.where('stepId', '=', owner.stepId ?? '');
    await query.execute();
    await db
      .insertInto('attachments')
      .values({
        id,
        projectId: owner.projectId,
        testId: owner.testId ?? null,
        stepId: owner.stepId ?? null,
        filename,
        blobKey,
        size: file.content.length,
        createdAt: now,
      })
      .execute();
  }
}

/** Every stored file of the given tests, with contents, keyed by test id (duplicate, export). */
export async function loadAttachmentsFor(
  db: Executor,
  blobs: BlobStore,
  testIds: string[],
): Promise<Map<string, UploadedFile[]>> {
  const out = new Map<string, UploadedFile[]>();
  for (const part of chunk(testIds, 500)) {
    const rows = await db
      .selectFrom('attachments')
      .select(['testId', 'filename', 'blobKey'])
      .where('testId', 'in', part)
      .execute();
    for (const row of rows) {
      const content = await blobs.get(row.blobKey);
      if (!content || !row.testId) continue;
      const list = out.get(row.testId) ?? [];
      list.push({ filename: row.filename, content });
      out.set(row.testId, list);
    }
  }
  return out;
}

/** A test's own files, by name. */
export async function attachmentsOfTest(db: Executor, testId: string) {
  return db
    .selectFrom('attachments')
    .select(['filename', 'blobKey', 'stepId'])
    .where('testId', '=', testId)
    .orderBy('filename')
    .execute();
}
