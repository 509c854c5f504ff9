import { randomUUID } from 'node:crypto';
import type { BlobStore } from '../../adapters/blobs/index.ts';
import type { Db, Tx } from '../../adapters/db/index.ts';
import { chunk } from '../../adapters/db/index.ts';
import { appError } from '../../errors.ts';
import { attachmentRowsOfTests, deleteAttachmentNamed, insertAttachment } from './attachments-repository.ts';

/** Files of tests and steps (`setInputFiles`): rows in `attachments`, contents in the blob store. */

type Executor = Db | Tx;

export interface UploadedFile {
  filename: string;
  content: Buffer;
}

const safeFilename = (filename: string) => {
  const base = filename.split(/[\\/]/).pop() ?? '';
  if (!base || base === '.' || base === '..' || base.length > 255)
    throw appError('FILE_NAME_INVALID', filename);
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
    await deleteAttachmentNamed(db, owner, filename);
    await insertAttachment(db, {
      id,
      projectId: owner.projectId,
      testId: owner.testId ?? null,
      stepId: owner.stepId ?? null,
      filename,
      blobKey,
      size: file.content.length,
      createdAt: now,
    });
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
    const rows = await attachmentRowsOfTests(db, part);
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
