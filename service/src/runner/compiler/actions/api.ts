import type { StepNode } from '@stepdeck/contract';
import { lit, templated as t } from '../code.ts';

/** Code of the API actions (a request, assertions on its response); null for others. */
export function apiActionCode(step: StepNode): string[] | null {
  const action = step.action;
  switch (action.name) {
    case 'request': {
      const options = [`method: ${lit(action.method)}`];
      if (action.headers) options.push(`headers: sd.tv(${lit(action.headers)})`);
      if (action.body !== undefined) options.push(`data: sd.tv(${lit(action.body)})`);
      return [
        `await sd.recordResponse(await request.fetch(sd.requestUrl(${t(action.url)}), { ${options.join(', ')} }), ${lit(action.variable)});`,
      ];
    }
    case 'assertStatus':
      return [
        `expect(sd.response().status, ${lit(`response status should be ${action.value}`)}).toBe(${lit(action.value)});`,
      ];
    case 'assertJson':
      return [
        `expect(readJsonPath(sd.response().body, ${lit(action.path)}), ${lit(`JSON at ${action.path}`)}).toEqual(sd.tv(${lit(action.value ?? null)}));`,
      ];
    default:
      return null;
  }
}
