import { z } from 'zod';
import { dataOf, jsonObject, pagination, queryInteger, testStatus, uuid } from './common.ts';
import { dataSet } from './data-set.ts';
import { runConfig } from './run-config.ts';

/** Wire schemas of `/v1/tests` and `/v1/steps`. Step actions are checked with `stepAction`. */

export const testType = z.enum(['ui', 'api']);
export const testTypeFilter = z.enum(['all', 'ui', 'api']);

const oneOrMany = <T extends z.ZodType>(item: T) =>
  z
    .union([item, z.array(item)])
    .optional()
    .transform((value) => (value === undefined ? undefined : Array.isArray(value) ? value : [value]));

const pageNumber = queryInteger('page', 0).default(0);
const pageLimit = queryInteger('limit', 1).default(50);

export const listTestsQuery = z.object({
  limit: pageLimit,
  page: pageNumber,
  name: z.string().optional(),
  status: oneOrMany(testStatus),
  tagIds: oneOrMany(uuid),
  type: testTypeFilter.default('all'),
  testId: uuid.optional(),
  /**
   * Extension of the spec (the console's tree loads its top level first): `true` lists only the
   * tests that sit in no directory. Filters, sort and pagination apply as without it; `false` or
   * absent changes nothing. Cannot be combined with `testId` (400).
   */
  topLevel: z.enum(['true', 'false'], { error: 'topLevel must be true or false' }).optional(),
  branch: uuid.optional(),
  sortBy: z.enum(['name', 'status', 'updatedAt']).optional(),
  sortOrder: z.enum(['asc', 'desc']).optional(),
});
export type ListTestsQuery = z.infer<typeof listTestsQuery>;

/** A step as sent by the editor: an action, or a reference to a shared step, with children for groups. */
export interface StepInput {
  id?: string;
  stepId?: string;
  revisionStepId?: string;
  name?: string;
  action?: unknown;
  condition?: unknown;
  metadata?: unknown;
  shared?: boolean;
  group?: boolean;
  order?: number;
  children?: StepInput[];
}
export const stepInputList = z.array(z.looseObject({}), { error: 'steps must be an array of steps' });

export const testMetadataInput = z.looseObject({
  type: testType.optional(),
  description: z.string().optional(),
});

export const createTestData = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
  status: testStatus.default('draft'),
  directory: z.boolean().default(false),
  parentTestId: uuid.nullable().optional(),
  config: runConfig.optional(),
  steps: stepInputList.optional(),
  tags: z.array(uuid).optional(),
  vars: jsonObject.nullable().optional(),
  parameters: jsonObject.nullable().optional(),
  metadata: testMetadataInput.optional(),
  /** The table the test runs over, once per row (`{{data.<column>}}` in steps); null removes it. */
  dataSet: dataSet.nullable().optional(),
});
export type CreateTestData = z.infer<typeof createTestData>;

export const updateTestData = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters').optional(),
  status: testStatus.optional(),
  directory: z.boolean().optional(),
  /**
   * Extension of the spec: moves the test (with its descendants) into this directory, or to the
   * top level when null. The spec's PUT offers no other way to move a test between directories.
   */
  parentTestId: uuid.nullable().optional(),
  config: runConfig.optional(),
  steps: stepInputList.optional(),
  tags: z.array(uuid).optional(),
  vars: jsonObject.nullable().optional(),
  parameters: jsonObject.nullable().optional(),
  metadata: testMetadataInput.optional(),
  /** The table the test runs over, once per row (`{{data.<column>}}` in steps); null removes it. */
  dataSet: dataSet.nullable().optional(),
  editVersion: z.union([z.number().int(), z.string()]).optional(),
});
export type UpdateTestData = z.infer<typeof updateTestData>;

const testIds = z.array(uuid, { error: 'testIds must be an array of UUIDs' }).min(1, 'at least one test ID');
export const bulkUpdateStatusBody = z.object({ testIds, status: testStatus });
export const bulkUpdateTagsBody = z.object({
  testIds,
  tagIds: z.array(uuid, { error: 'tagIds must be an array of UUIDs' }),
});
export const bulkDeleteBody = z.object({ testIds });

export const duplicateTestBody = z
  .object({
    name: z.string().trim().min(1, 'must not be empty').max(128, 'must be at most 128 characters').optional(),
    status: testStatus.optional(),
  })
  .optional();

export const createRevisionBody = z.object({
  message: z.string({ error: 'message is required' }).trim().min(1, 'message must not be empty').max(1000),
});

export const exportTestsBody = z.object({
  testIds: z.array(uuid).optional(),
  tagIds: z.array(uuid).optional(),
  directoryId: uuid.optional(),
  format: z.enum(['json', 'pw']).default('json'),
});

export const listSharedStepsQuery = z.object({
  limit: pageLimit,
  page: pageNumber,
  search: z.string().optional(),
  type: testTypeFilter.default('all'),
});

export const updateStepData = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(256).optional(),
  action: z.unknown().optional(),
  metadata: jsonObject.nullable().optional(),
  condition: z.unknown().optional(),
});

/** The test item of `GET /v1/tests`. */
export const testListItem = z.object({
  id: uuid,
  parentTestId: z.string().nullable(),
  projectId: z.string(),
  organizationId: z.string(),
  name: z.string(),
  status: testStatus,
  directory: z.boolean(),
  config: jsonObject,
  vars: jsonObject.nullable(),
  parameters: jsonObject.nullable(),
  metadata: jsonObject,
  tags: z.array(z.object({ id: z.string(), name: z.string() })),
  childrenCount: z.number().int(),
  stepsCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const listTestsResponse = z.object({ children: z.array(testListItem), pagination });

/** Version of the JSON export format written into `manifest.json`. */
export const testExportFormatVersion = 1;

/**
 * The JSON export format, as import reads it back: `manifest.json`, `tests/<name>.json` and
 * `shared-steps.json`. Lenient where older or hand-made archives leave fields out (the import
 * fills the defaults); each test's fields are then checked as a create would check them.
 */
export const exportManifest = z.object({ formatVersion: z.unknown(), tests: z.unknown() });
export const exportedTest = z.object({
  id: z.string(),
  parentId: z.string().nullable().default(null),
  name: z.string(),
  status: testStatus.optional(),
  directory: z.boolean().optional(),
  config: jsonObject.optional(),
  vars: jsonObject.nullable().optional(),
  parameters: jsonObject.nullable().optional(),
  metadata: z.looseObject({ type: testType.optional(), description: z.string().optional() }).optional(),
  dataSet: z.unknown().optional(),
  tags: z.array(z.string()).optional(),
  steps: z.array(z.unknown()).optional(),
  files: z.array(z.object({ filename: z.string(), content: z.string() })).optional(),
});
export type ExportedTestDocument = z.infer<typeof exportedTest>;
export const exportedSharedStep = z.looseObject({
  id: z.string(),
  name: z.string(),
  action: jsonObject,
  condition: z.unknown(),
  metadata: z.unknown(),
  group: z.boolean().optional(),
  children: z.array(z.unknown()).optional(),
});
export const exportedSharedSteps = z.array(exportedSharedStep);

/**
 * A step of a step tree as the API shows it (`id` is the revision-step id). `action` holds
 * `name` plus the action's own fields (checked on write with `stepAction`); `condition` is
 * `{ type: 'skip' | 'alwaysRun' }` or `{ type: 'if', variable, equals }`.
 * Typed `unknown` for the service, whose step trees are built from JSON columns.
 */
export const stepView: z.ZodType<unknown> = z
  .object({
    id: z.string(),
    revisionStepId: z.string(),
    stepId: z.string(),
    name: z.string(),
    action: jsonObject,
    condition: jsonObject.nullable(),
    metadata: jsonObject.nullable(),
    order: z.number().int(),
    group: z.boolean(),
    shared: z.boolean(),
    children: z.array(z.lazy(() => stepView)),
  })
  .meta({ id: 'Step' });

/** `POST /v1/tests`: the bare test row. */
export const createdTest = z.object({
  id: z.string(),
  parentTestId: z.string().nullable(),
  projectId: z.string(),
  organizationId: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
/** `GET /v1/tests/:testId`. */
export const testDetailResponse = z.object({
  test: testListItem.extend({
    editVersion: z.number().int(),
    revisionId: z.string(),
    branchId: z.string(),
    /** The test's data set (additive): null for a test that runs once. */
    dataSet: dataSet.nullable().optional(),
  }),
  children: z.array(testListItem.extend({ editVersion: z.number().int() })),
  steps: z.array(stepView),
  parentDirectory: z
    .object({ id: z.string(), name: z.string(), parentTestId: z.string().nullable() })
    .nullable(),
});
export const testStepsResponse = dataOf(z.object({ steps: z.array(stepView) }));
export const testStepResponse = dataOf(z.object({ step: stepView, children: z.array(stepView) }));
export const fileAttachment = z.object({
  filename: z.string(),
  content: z.string(),
  stepId: z.string(),
});
export const testFilesResponse = dataOf(z.array(fileAttachment));
export const revision = z.object({
  id: z.string(),
  message: z.string(),
  revisionType: z.string(),
  createdAt: z.string(),
});
export const revisionResponse = dataOf(revision);
export const revisionsResponse = dataOf(z.array(revision));
export const revisionDetailResponse = dataOf(
  z.object({
    revision: z.object({ id: z.string(), message: z.string(), createdAt: z.string() }),
    test: z.object({ id: z.string(), name: z.string() }),
    steps: z.array(stepView),
  }),
);
export const duplicatedTestResponse = dataOf(z.object({ id: z.string(), name: z.string() }));
export const importResponse = dataOf(
  z.object({
    imported: z.object({
      tests: z.number().int(),
      sharedSteps: z.number().int(),
      tags: z.number().int(),
      steps: z.number().int(),
    }),
    errors: z.array(z.object({ file: z.string(), error: z.string() })),
  }),
);

/** A shared step (`GET /v1/steps/:stepId`, items of `GET /v1/steps/shared`). */
export const sharedStep = z.object({
  id: z.string(),
  name: z.string(),
  action: jsonObject,
  shared: z.boolean(),
  group: z.boolean(),
});
export const sharedStepListResponse = z.object({ data: z.array(sharedStep), pagination });
export const sharedStepResponse = dataOf(sharedStep);
/** A child of a shared group: `id` is the link id, `stepId` the child's canonical step. */
export const sharedStepChild = z.object({
  id: z.string(),
  stepId: z.string(),
  name: z.string(),
  action: jsonObject,
  order: z.number().int(),
});
export const stepChildrenResponse = dataOf(
  z.object({ step: sharedStep, children: z.array(sharedStepChild) }),
);
export const stepUsageResponse = dataOf(z.array(z.object({ id: z.string(), name: z.string() })));
export const updatedStepResponse = dataOf(z.object({ id: z.string(), name: z.string(), action: jsonObject }));
export const replacedChildrenResponse = dataOf(
  z.object({
    step: z.object({ id: z.string(), name: z.string() }),
    children: z.array(z.object({ id: z.string(), name: z.string(), order: z.number().int() })),
  }),
);
export const deletedStepResponse = z.object({
  message: z.string(),
  data: z.object({ id: z.string(), shared: z.boolean(), group: z.boolean() }),
});
