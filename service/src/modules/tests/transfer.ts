import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  createTestData,
  type ExportedTestDocument,
  exportedSharedSteps,
  exportedTest,
  exportManifest,
  type StepInput,
  testExportFormatVersion,
} from '@stepdeck/contract';
import yauzl from 'yauzl';
import yazl from 'yazl';
import type { z } from 'zod';
import type { BlobStore } from '../../adapters/blobs/index.ts';
import type { Db } from '../../adapters/db/index.ts';
import { chunk, toFlag } from '../../adapters/db/index.ts';
import { lockTestTree } from '../../adapters/db/locks.ts';
import { type Clock, isoNow } from '../../clock.ts';
import { badRequest, notFound, tooManyRequests } from '../../errors.ts';
import { zodMessage } from '../../plugins/errors.ts';
import { ensureTags } from '../console/public.ts';
import { loadStepTrees, normalizeSteps, type StepView, StepWriter } from '../steps/public.ts';
import { loadCompilableTests, loadProjectSecrets } from './executable.ts';
import { branchTree, findWorkingMany, revisionRow, subtreeIds, tagsOf } from './repository.ts';
import { type Scope, storeAttachments, type TestsService, testTypeOf } from './service.ts';

/** Export cap (the spec: 10000 tests). An object so tests can lower it; the default stays 10000. */
export const exportLimits = { maxTests: 10_000 };
/**
 * Import caps: entries in the archive, total and per-entry uncompressed bytes. Entries are held in
 * memory while the import is validated, so the caps bound the memory one import can take; they are
 * counted as bytes are inflated, never taken from the archive's own (forgeable) size fields alone.
 * One entry fits the largest attachment an upload allows (25 MiB, base64 in its test document).
 */
export const importLimits = {
  maxEntries: 25_000,
  maxTotalBytes: 256 * 1024 * 1024,
  maxEntryBytes: 40 * 1024 * 1024,
};
/** Imports running at once; more answer 429 with Retry-After (the upload is already in memory). */
export const importConcurrency = { max: 2, retryAfterSeconds: 5 };
let importsRunning = 0;

interface ExportedTest {
  id: string;
  parentId: string | null;
  name: string;
  status: 'draft' | 'active' | 'archived';
  directory: boolean;
  config: Record<string, unknown>;
  vars: Record<string, unknown> | null;
  parameters: Record<string, unknown> | null;
  metadata: Record<string, unknown>;
  tags: string[];
  steps: StepInput[];
  files: Array<{ filename: string; content: string }>;
}

interface ExportedSharedStep {
  id: string;
  name: string;
  action: Record<string, unknown>;
  condition: unknown;
  metadata: unknown;
  group: boolean;
  children: StepInput[];
}

const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60) || 'test';

/** Entries smaller than this are stored uncompressed in export archives. */
const storeBelowBytes = 8 * 1024;

function zipFiles(files: Map<string, Buffer | string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  // Small entries are stored: deflating 10000 sub-kilobyte documents costs seconds (one zlib
  // instance each) and saves little. Larger ones are deflated as streams, one at a time as the
  // archive is written (addBuffer would start every deflate at once).
  for (const [name, content] of files) {
    const buffer = typeof content === 'string' ? Buffer.from(content) : content;
    if (buffer.length < storeBelowBytes)
      zip.addBuffer(buffer, name, { mtime: new Date(0), compressionLevel: 0 });
    else zip.addReadStream(Readable.from([buffer]), name, { mtime: new Date(0), size: buffer.length });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

const tooLarge = (what: string, limit: number) =>
  `Archive is too large uncompressed: ${what} exceeds the limit of ${limit} bytes`;

/**
 * Reads every entry, refusing traversal, oversize and over-count archives before anything is
 * written. The central directory is checked first (an archive declaring more than the caps is
 * refused before inflating a byte); then entries are inflated one at a time while counting the
 * bytes, and the stream is destroyed as soon as a cap is passed, whatever the headers declared.
 */
function unzip(buffer: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(
      buffer,
      { lazyEntries: true, validateEntrySizes: true, strictFileNames: true },
      (error, zip) => {
        if (error || !zip) return reject(badRequest(`Malformed archive: ${error?.message ?? 'unreadable'}`));
        if (zip.entryCount > importLimits.maxEntries)
          return reject(
            badRequest(`Archive has ${zip.entryCount} entries; the limit is ${importLimits.maxEntries}`),
          );
        let settled = false;
        const fail = (message: string) => {
          if (settled) return;
          settled = true;
          zip.close();
          reject(badRequest(message));
        };
        const files: yauzl.Entry[] = [];
        let declared = 0;
        zip.on('error', (err: Error) => fail(`Malformed archive: ${err.message}`));
        zip.on('entry', (entry: yauzl.Entry) => {
          const name = entry.fileName;
          if (name.startsWith('/') || name.includes('\\') || name.split('/').includes('..'))
            return fail(`Archive entry "${name}" has an unsafe path`);
          if (!name.endsWith('/')) {
            if (entry.uncompressedSize > importLimits.maxEntryBytes)
              return fail(tooLarge(`entry "${name}"`, importLimits.maxEntryBytes));
            declared += entry.uncompressedSize;
            if (declared > importLimits.maxTotalBytes)
              return fail(tooLarge('the total of its entries', importLimits.maxTotalBytes));
            files.push(entry);
          }
          zip.readEntry();
        });
        zip.on('end', () => {
          const out = new Map<string, Buffer>();
          let total = 0;
          const next = (index: number) => {
            if (settled) return;
            const entry = files[index];
            if (!entry) {
              settled = true;
              return resolve(out);
            }
            zip.openReadStream(entry, (streamError, stream) => {
              if (streamError || !stream)
                return fail(`Malformed archive: ${streamError?.message ?? 'unreadable entry'}`);
              const chunks: Buffer[] = [];
              let size = 0;
              const refuse = (message: string) => {
                stream.destroy();
                chunks.length = 0;
                fail(message);
              };
              stream.on('data', (chunk: Buffer) => {
                size += chunk.length;
                total += chunk.length;
                if (size > importLimits.maxEntryBytes)
                  return refuse(tooLarge(`entry "${entry.fileName}"`, importLimits.maxEntryBytes));
                if (total > importLimits.maxTotalBytes)
                  return refuse(tooLarge('the total of its entries', importLimits.maxTotalBytes));
                chunks.push(chunk);
              });
              stream.on('error', (err) => refuse(`Malformed archive: ${err.message}`));
              stream.on('end', () => {
                out.set(entry.fileName, Buffer.concat(chunks));
                next(index + 1);
              });
            });
          };
          next(0);
        });
        zip.readEntry();
      },
    );
  });
}

const viewsToExport = (views: StepView[], shared: Map<string, StepView>): StepInput[] =>
  views.map((view) => {
    if (view.shared) {
      shared.set(view.stepId, view);
      return { shared: true, stepId: view.stepId, name: view.name };
    }
    return {
      name: view.name,
      action: view.action,
      ...(view.condition ? { condition: view.condition } : {}),
      ...(view.metadata ? { metadata: view.metadata } : {}),
      ...(view.group ? { children: viewsToExport(view.children, shared) } : {}),
    };
  });

export class TransferService {
  private readonly db: Db;
  private readonly blobs: BlobStore;
  private readonly clock: Clock;
  private readonly tests: TestsService;

  constructor(db: Db, blobs: BlobStore, clock: Clock, tests: TestsService) {
    this.db = db;
    this.blobs = blobs;
    this.clock = clock;
    this.tests = tests;
  }

  private async select(
    scope: Scope,
    body: { testIds?: string[] | undefined; tagIds?: string[] | undefined; directoryId?: string | undefined },
  ) {
    if (!body.testIds?.length && !body.tagIds?.length && !body.directoryId)
      throw badRequest('Select tests to export with testIds, tagIds or directoryId');
    const tree = await branchTree(this.db, scope.projectId, scope.branchId);
    const known = new Set(tree.map((node) => node.id));
    const roots: string[] = [];
    for (const id of [...(body.testIds ?? []), ...(body.directoryId ? [body.directoryId] : [])]) {
      if (!known.has(id)) throw notFound('Test not found');
      roots.push(id);
    }
    if (body.tagIds?.length) {
      const rows = await this.db
        .selectFrom('testTags')
        .select('testId')
        .where('tagId', 'in', body.tagIds)
        .execute();
      roots.push(...rows.map((row) => row.testId).filter((id) => known.has(id)));
    }
    return subtreeIds(tree, roots);
  }

  async export(
    scope: Scope,
    body: {
      testIds?: string[] | undefined;
      tagIds?: string[] | undefined;
      directoryId?: string | undefined;
      format: 'json' | 'pw';
    },
  ): Promise<{ zip: Buffer; filename: string }> {
    const ids = await this.select(scope, body);
    if (ids.length > exportLimits.maxTests)
      throw badRequest(`Export is limited to ${exportLimits.maxTests} tests; ${ids.length} selected`);
    if (ids.length === 0) throw badRequest('No tests match the selection');
    const filename = ids.length === 1 ? 'service-test.zip' : 'service-tests.zip';
    if (body.format === 'pw') {
      const compiler = await import('../../runner/compiler/index.ts');
      const leaves = (await findWorkingMany(this.db, scope.projectId, scope.branchId, ids)).filter(
        (test) => !test.directory,
      );
      const tests = await loadCompilableTests(this.db, this.blobs, {
        projectId: scope.projectId,
        branchId: scope.branchId,
        testIds: ids.filter((id) => leaves.some((leaf) => leaf.id === id)),
      });
      const secretNames = Object.keys(await loadProjectSecrets(this.db, scope.projectId));
      const project = compiler.compileProject({ tests, config: null, secretNames });
      return { zip: await zipFiles(project.files), filename };
    }
    const tests = await findWorkingMany(this.db, scope.projectId, scope.branchId, ids);
    const byId = new Map(tests.map((test) => [test.id, test]));
    const trees = await loadStepTrees(
      this.db,
      tests.map((test) => test.revisionId),
    );
    const tags = await tagsOf(this.db, ids);
    const attachments = await this.tests.loadAttachmentsFor(ids);
    const shared = new Map<string, StepView>();
    const files = new Map<string, Buffer | string>();
    const names: string[] = [];
    ids.forEach((id, index) => {
      const test = byId.get(id);
      if (!test) return;
      const doc: ExportedTest = {
        id: test.id,
        parentId: test.parentTestId && byId.has(test.parentTestId) ? test.parentTestId : null,
        name: test.name,
        status: test.status,
        directory: test.directory,
        config: test.config as Record<string, unknown>,
        vars: test.vars,
        parameters: test.parameters,
        metadata: { ...test.metadata, type: test.type },
        tags: (tags.get(id) ?? []).map((tag) => tag.name),
        steps: viewsToExport(trees.get(test.revisionId) ?? [], shared),
        files: (attachments.get(id) ?? []).map((file) => ({
          filename: file.filename,
          content: file.content.toString('base64'),
        })),
      };
      const name = `tests/${String(index + 1).padStart(5, '0')}-${slug(test.name)}.json`;
      names.push(name);
      files.set(name, JSON.stringify(doc, null, 1));
    });
    const sharedSteps: ExportedSharedStep[] = [...shared.values()].map((view) => ({
      id: view.stepId,
      name: view.name,
      action: view.action,
      condition: view.condition,
      metadata: view.metadata,
      group: view.group,
      children: viewsToExport(view.children, new Map()),
    }));
    files.set('shared-steps.json', JSON.stringify(sharedSteps, null, 1));
    files.set(
      'manifest.json',
      JSON.stringify(
        {
          format: 'stepdeck-tests',
          formatVersion: testExportFormatVersion,
          exportedAt: isoNow(this.clock),
          tests: names,
          sharedSteps: 'shared-steps.json',
        },
        null,
        1,
      ),
    );
    return { zip: await zipFiles(files), filename };
  }

  async import(scope: Scope, zip: Buffer | undefined) {
    if (!zip) throw badRequest('file is required: a ZIP produced by POST /v1/tests/export');
    if (importsRunning >= importConcurrency.max)
      throw tooManyRequests(
        `Too many imports in progress (limit ${importConcurrency.max}); retry shortly`,
        importConcurrency.retryAfterSeconds,
      );
    importsRunning += 1;
    try {
      return await this.importArchive(scope, zip);
    } finally {
      importsRunning -= 1;
    }
  }

  private async importArchive(scope: Scope, zip: Buffer) {
    const entries = await unzip(zip);
    const manifestRaw = entries.get('manifest.json');
    if (!manifestRaw) throw badRequest('Archive has no manifest.json');
    let manifestJson: unknown;
    try {
      manifestJson = JSON.parse(manifestRaw.toString('utf8'));
    } catch {
      throw badRequest('manifest.json is not valid JSON');
    }
    const manifestCheck = exportManifest.safeParse(manifestJson);
    if (!manifestCheck.success) throw badRequest(`manifest.json: ${zodMessage(manifestCheck.error)}`);
    const manifest = manifestCheck.data;
    if (manifest.formatVersion !== testExportFormatVersion)
      throw badRequest(
        `Unsupported export format version ${String(manifest.formatVersion)} (expected ${testExportFormatVersion})`,
      );
    const errors: Array<{ file: string; error: string }> = [];
    let sharedDocs: z.infer<typeof exportedSharedSteps> = [];
    const sharedRaw = entries.get('shared-steps.json');
    if (sharedRaw) {
      try {
        const parsed: unknown = JSON.parse(sharedRaw.toString('utf8'));
        if (!Array.isArray(parsed)) throw new Error('not an array');
        const check = exportedSharedSteps.safeParse(parsed);
        if (!check.success) throw new Error(zodMessage(check.error));
        sharedDocs = check.data;
      } catch (error) {
        errors.push({ file: 'shared-steps.json', error: `invalid: ${(error as Error).message}` });
        sharedDocs = [];
      }
    }
    const sharedIds = new Set(sharedDocs.map((doc) => doc.id));
    const docs: Array<{ file: string; doc: ExportedTestDocument; steps: ReturnType<typeof normalizeSteps> }> =
      [];
    for (const [file, content] of entries) {
      if (file === 'manifest.json' || file === 'shared-steps.json') continue;
      if (!file.startsWith('tests/') || !file.endsWith('.json')) {
        errors.push({ file, error: 'unexpected entry' });
        continue;
      }
      try {
        const shape = exportedTest.safeParse(JSON.parse(content.toString('utf8')));
        if (!shape.success) throw new Error(zodMessage(shape.error));
        const doc = shape.data;
        const check = createTestData.safeParse({
          name: doc.name,
          status: doc.status,
          directory: doc.directory,
          config: doc.config,
          vars: doc.vars,
          parameters: doc.parameters,
        });
        if (!check.success) throw new Error(zodMessage(check.error));
        docs.push({ file, doc, steps: normalizeSteps(doc.steps ?? [], 'steps', sharedIds) });
      } catch (error) {
        errors.push({ file, error: (error as Error).message });
      }
    }
    const sharedSteps = sharedDocs.flatMap((doc) => {
      try {
        return [
          {
            doc,
            step: normalizeSteps(
              [{ ...doc, shared: true, id: undefined, stepId: undefined }],
              'shared',
              sharedIds,
            )[0],
          },
        ];
      } catch (error) {
        errors.push({ file: 'shared-steps.json', error: `${doc.name}: ${(error as Error).message}` });
        return [];
      }
    });
    // Parents before children; a test whose parent is missing is imported at the root.
    const docIds = new Set(docs.map((entry) => entry.doc.id));
    const ordered = subtreeIds(
      docs.map((entry) => ({ id: entry.doc.id, parentTestId: entry.doc.parentId })),
      docs
        .filter((entry) => !entry.doc.parentId || !docIds.has(entry.doc.parentId))
        .map((entry) => entry.doc.id),
    );
    const byId = new Map(docs.map((entry) => [entry.doc.id, entry]));
    const now = isoNow(this.clock);
    const counts = { tests: 0, sharedSteps: 0, tags: 0, steps: 0 };
    await this.db.transaction().execute(async (trx) => {
      // Tests are created under parents: the tree lock first, like every create path.
      await lockTestTree(trx, scope.branchId, 'shared');
      // Tags by name, created in the organization when missing.
      const tagNames = [...new Set(docs.flatMap((entry) => entry.doc.tags ?? []))];
      const { ids: tagIds, created } = await ensureTags(trx, scope.organizationId, tagNames, now);
      counts.tags += created;
      // Shared steps get new ids; references are remapped.
      const sharedMap = new Map<string, string>();
      const sharedWriter = new StepWriter(scope.projectId, 'ui', now);
      for (const { doc, step } of sharedSteps) {
        if (!step) continue;
        const id = sharedWriter.canonical(step, true);
        if (step.group) sharedWriter.sharedGroupChildren(id, step.children);
        sharedMap.set(doc.id, id);
        counts.sharedSteps += 1;
      }
      await sharedWriter.flush(trx);
      const remap = (steps: ReturnType<typeof normalizeSteps>): ReturnType<typeof normalizeSteps> =>
        steps.map((step) => ({
          ...step,
          ...(step.sharedRef ? { sharedRef: sharedMap.get(step.sharedRef) } : {}),
          children: remap(step.children),
        }));
      // Rows are collected for every test and written in batches (a 10000-test archive would
      // otherwise cost several statements per test).
      const newIds = new Map<string, string>();
      const testRows: Array<{
        id: string;
        projectId: string;
        organizationId: string;
        parentTestId: string | null;
        directory: number;
        createdAt: string;
        updatedAt: string;
      }> = [];
      const revisionRows: Array<ReturnType<typeof revisionRow>> = [];
      const tagRows: Array<{ testId: string; tagId: string }> = [];
      const uploads: Array<{ testId: string; files: Array<{ filename: string; content: Buffer }> }> = [];
      const writers = {
        ui: new StepWriter(scope.projectId, 'ui', now),
        api: new StepWriter(scope.projectId, 'api', now),
      };
      for (const id of ordered) {
        const entry = byId.get(id);
        if (!entry) continue;
        const { doc } = entry;
        const testId = randomUUID();
        newIds.set(doc.id, testId);
        testRows.push({
          id: testId,
          projectId: scope.projectId,
          organizationId: scope.organizationId,
          parentTestId: doc.parentId ? (newIds.get(doc.parentId) ?? null) : null,
          directory: toFlag(Boolean(doc.directory)),
          createdAt: now,
          updatedAt: now,
        });
        const type = testTypeOf(doc.metadata as { type?: 'ui' | 'api' });
        const revisionId = randomUUID();
        const stepsCount = writers[type].tree(revisionId, remap(entry.steps));
        revisionRows.push(
          revisionRow({
            id: revisionId,
            testId,
            projectId: scope.projectId,
            branchId: scope.branchId,
            name: doc.name,
            status: doc.status ?? 'draft',
            type,
            config: doc.config ?? {},
            vars: doc.vars ?? null,
            parameters: doc.parameters ?? null,
            metadata: { description: (doc.metadata?.description as string | undefined) ?? '' },
            stepsCount,
            now,
          }),
        );
        for (const name of new Set(doc.tags ?? [])) {
          const tagId = tagIds.get(name);
          if (tagId) tagRows.push({ testId, tagId });
        }
        if (doc.files?.length)
          uploads.push({
            testId,
            files: doc.files.map((file) => ({
              filename: file.filename,
              content: Buffer.from(file.content, 'base64'),
            })),
          });
        counts.tests += 1;
        counts.steps += stepsCount;
      }
      for (const part of chunk(testRows, 200)) await trx.insertInto('tests').values(part).execute();
      for (const part of chunk(revisionRows, 100))
        await trx.insertInto('testRevisions').values(part).execute();
      await writers.ui.flush(trx);
      await writers.api.flush(trx);
      for (const part of chunk(tagRows, 400)) await trx.insertInto('testTags').values(part).execute();
      for (const upload of uploads)
        await storeAttachments(
          trx,
          this.blobs,
          { projectId: scope.projectId, testId: upload.testId },
          upload.files,
          now,
        );
    });
    return { imported: counts, errors };
  }
}
