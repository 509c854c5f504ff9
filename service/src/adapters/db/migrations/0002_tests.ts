import type { Kysely } from 'kysely';

/**
 * Tests, their per-branch revisions, canonical steps (shared or not), the step trees of
 * revisions, tags on tests, file attachments and project secrets.
 */
export interface TestsTables {
  tests: {
    id: string;
    projectId: string;
    organizationId: string;
    parentTestId: string | null;
    directory: number;
    createdAt: string;
    updatedAt: string;
  };
  /** `kind` `working` (one per test and branch, the unsaved state) or `manual` (a saved snapshot). */
  testRevisions: {
    id: string;
    testId: string;
    projectId: string;
    branchId: string;
    kind: 'working' | 'manual';
    name: string;
    nameLower: string;
    status: 'draft' | 'active' | 'archived';
    type: 'ui' | 'api';
    config: string;
    vars: string | null;
    parameters: string | null;
    metadata: string;
    editVersion: number;
    /** 1 when the working revision changed since the last saved snapshot. */
    dirty: number;
    message: string | null;
    stepsCount: number;
    /** Copy of `tests.createdAt`: the default list order, indexed per branch. */
    testCreatedAt: string;
    createdAt: string;
    updatedAt: string;
  };
  /** Canonical steps; `shared` ones are reused by many tests, others belong to one tree. */
  steps: {
    id: string;
    projectId: string;
    name: string;
    nameLower: string;
    action: string;
    metadata: string | null;
    condition: string | null;
    shared: number;
    isGroup: number;
    type: 'ui' | 'api';
    createdAt: string;
    updatedAt: string;
  };
  /** Ordered children of a shared group (canonical to canonical). */
  stepChildren: { id: string; parentStepId: string; childStepId: string; position: number };
  /** A revision's step tree: each node points at a canonical step. */
  revisionSteps: {
    id: string;
    revisionId: string;
    stepId: string;
    parentId: string | null;
    position: number;
  };
  testTags: { testId: string; tagId: string };
  attachments: {
    id: string;
    projectId: string;
    testId: string | null;
    stepId: string | null;
    filename: string;
    blobKey: string;
    size: number;
    createdAt: string;
  };
  projectSecrets: { projectId: string; name: string; value: string; createdAt: string; updatedAt: string };
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('projectId', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('organizationId', 'text', (c) => c.notNull())
    .addColumn('parentTestId', 'text')
    .addColumn('directory', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tests_project').on('tests').columns(['projectId', 'createdAt']).execute();
  await db.schema.createIndex('tests_parent').on('tests').column('parentTestId').execute();

  await db.schema
    .createTable('testRevisions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('testId', 'text', (c) => c.notNull().references('tests.id').onDelete('cascade'))
    .addColumn('projectId', 'text', (c) => c.notNull())
    .addColumn('branchId', 'text', (c) => c.notNull().references('branches.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('nameLower', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('vars', 'text')
    .addColumn('parameters', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('editVersion', 'integer', (c) => c.notNull())
    .addColumn('dirty', 'integer', (c) => c.notNull())
    .addColumn('message', 'text')
    .addColumn('stepsCount', 'integer', (c) => c.notNull())
    .addColumn('testCreatedAt', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('testRevisions_branch_name')
    .on('testRevisions')
    .columns(['branchId', 'kind', 'nameLower', 'testId'])
    .execute();
  // One index per sort of GET /v1/tests, so a page is read in index order.
  await db.schema
    .createIndex('testRevisions_branch_created')
    .on('testRevisions')
    .columns(['branchId', 'kind', 'testCreatedAt', 'testId'])
    .execute();
  await db.schema
    .createIndex('testRevisions_branch_updated')
    .on('testRevisions')
    .columns(['branchId', 'kind', 'updatedAt', 'testId'])
    .execute();
  await db.schema
    .createIndex('testRevisions_branch_status')
    .on('testRevisions')
    .columns(['branchId', 'kind', 'status', 'testId'])
    .execute();
  await db.schema
    .createIndex('testRevisions_test')
    .on('testRevisions')
    .columns(['testId', 'branchId', 'kind'])
    .execute();

  await db.schema
    .createTable('steps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('projectId', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('nameLower', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text')
    .addColumn('condition', 'text')
    .addColumn('shared', 'integer', (c) => c.notNull())
    .addColumn('isGroup', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('steps_project_shared').on('steps').columns(['projectId', 'shared']).execute();

  await db.schema
    .createTable('stepChildren')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('parentStepId', 'text', (c) => c.notNull().references('steps.id').onDelete('cascade'))
    .addColumn('childStepId', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('stepChildren_parent').on('stepChildren').column('parentStepId').execute();

  await db.schema
    .createTable('revisionSteps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('revisionId', 'text', (c) => c.notNull().references('testRevisions.id').onDelete('cascade'))
    .addColumn('stepId', 'text', (c) => c.notNull())
    .addColumn('parentId', 'text')
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('revisionSteps_revision').on('revisionSteps').column('revisionId').execute();
  await db.schema.createIndex('revisionSteps_step').on('revisionSteps').column('stepId').execute();

  await db.schema
    .createTable('testTags')
    .addColumn('testId', 'text', (c) => c.notNull().references('tests.id').onDelete('cascade'))
    .addColumn('tagId', 'text', (c) => c.notNull().references('tags.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('testTags_pk', ['testId', 'tagId'])
    .execute();
  await db.schema.createIndex('testTags_tag').on('testTags').column('tagId').execute();

  await db.schema
    .createTable('attachments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('projectId', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('testId', 'text', (c) => c.references('tests.id').onDelete('cascade'))
    .addColumn('stepId', 'text')
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('blobKey', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('attachments_test').on('attachments').column('testId').execute();
  await db.schema.createIndex('attachments_step').on('attachments').column('stepId').execute();

  await db.schema
    .createTable('projectSecrets')
    .addColumn('projectId', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('updatedAt', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('projectSecrets_pk', ['projectId', 'name'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'projectSecrets',
    'attachments',
    'testTags',
    'revisionSteps',
    'stepChildren',
    'steps',
    'testRevisions',
    'tests',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
