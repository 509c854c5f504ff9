import type { Db, Tx } from '../../adapters/db/index.ts';
import { appError } from '../../errors.ts';
import { findEnvironmentById, findEnvironmentByName, loadSecretValues } from './repository.ts';
import { variablesOf } from './service.ts';

/** An environment as a run picks it: recorded by id and name, its base URL under the run's config. */
export interface PickedEnvironment {
  id: string;
  name: string;
  baseURL: string | null;
}

/** The project's environment of this name; 400 naming it when the project has none such. */
export async function environmentOfProject(
  db: Db | Tx,
  projectId: string,
  name: string,
): Promise<PickedEnvironment> {
  const row = await findEnvironmentByName(db, projectId, name);
  if (!row) throw appError('ENVIRONMENT_UNKNOWN', name);
  return { id: row.id, name: row.name, baseURL: row.baseURL };
}

/**
 * An environment's variables and secrets as a run executes (an edit applies to runs not yet
 * started); empty when it was deleted since the run started.
 */
export async function environmentForExecution(
  db: Db,
  environmentId: string,
): Promise<{ variables: Record<string, string>; secrets: Record<string, string> }> {
  const row = await findEnvironmentById(db, environmentId);
  if (!row) return { variables: {}, secrets: {} };
  return { variables: variablesOf(row), secrets: await loadSecretValues(db, environmentId) };
}
