/**
 * Step trees of test revisions, in four files read on their own: the stored and shown forms
 * (`step-rows.ts`), client input (`step-input.ts`), writing (`step-writer.ts`) and reading
 * (`step-trees.ts`), their queries in `step-trees-repository.ts`. Importers use this file.
 */
export * from './step-input.ts';
export * from './step-rows.ts';
export * from './step-trees.ts';
export { requireStep } from './step-trees-repository.ts';
export * from './step-writer.ts';
