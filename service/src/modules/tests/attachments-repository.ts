import type { Db, Tx } from '../../adapters/db/index.ts';

/** The `attachments` rows of tests and steps (their contents are in the blob store). */

type Executor = Db | Tx;

/** Removes the attachment of that name from a test, or (without a test) from a step. */
export async function deleteAttachmentNamed(
  db: Executor,
  owner: { projectId: string; testId?: string | null; stepId?: string | null },
  filename: string,
) {
  let query = db
    .deleteFrom('attachments')
    .where('projectId', '=', owner.projectId)
    .where('filename', '=', filename);
  query = owner.testId
    ? query.where('testId', '=', owner.testId)
    : query.where('stepId', '=', owner.stepId ?? '');
  await query.execute();
}

export async function insertAttachment(
  db: Executor,
  row: {
    id: string;
    projectId: string;
    testId: string | null;
    stepId: string | null;
    filename: string;
    blobKey: string;
    size: number;
    createdAt: string;
  },
) {
  await db.insertInto('attachments').values(row).execute();
}

/** The attachments of these tests (one statement: callers chunk the ids). */
export async function attachmentRowsOfTests(db: Executor, testIds: string[]) {
  return db
    .selectFrom('attachments')
    .select(['testId', 'filename', 'blobKey'])
    .where('testId', 'in', testIds)
    .execute();
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

/** The attachments of these tests of the project (one statement: callers chunk the ids). */
export async function attachmentRowsOfTestsInProject(db: Executor, projectId: string, testIds: string[]) {
  return db
    .selectFrom('attachments')
    .select(['testId', 'filename', 'blobKey'])
    .where('projectId', '=', projectId)
    .where('testId', 'in', testIds)
    .execute();
}

/** The files uploaded to these canonical steps of the project (one statement: callers chunk). */
export async function stepAttachmentRowsInProject(db: Executor, projectId: string, stepIds: string[]) {
  return db
    .selectFrom('attachments')
    .select(['stepId', 'filename', 'blobKey'])
    .where('projectId', '=', projectId)
    .where('testId', 'is', null)
    .where('stepId', 'in', stepIds)
    .execute();
}

/** The blob keys of these tests' attachments (one statement: callers chunk). */
export async function attachmentBlobKeysOfTests(db: Executor, testIds: string[]): Promise<string[]> {
  const files = await db.selectFrom('attachments').select('blobKey').where('testId', 'in', testIds).execute();
  return files.map((file) => file.blobKey);
}
