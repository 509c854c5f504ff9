import type { StepNode } from '@stepdeck/contract';
import { lit } from '../code.ts';

/**
 * Code of the network steps (`mockRoute`, `waitForResponse`), TOTP codes (`totp`) and
 * accessibility checks (`assertAccessible`); null for others. Their runtime is in
 * `stepdeck-network.ts`, `stepdeck-totp.ts` and `stepdeck-accessibility.ts`, which the spec
 * imports (see {@link networkSpecImports}) only when a test uses them.
 */
export function networkActionCode(step: StepNode): string[] | null {
  const action = step.action;
  switch (action.name) {
    case 'mockRoute': {
      const { name: _name, description: _description, ...options } = action;
      // Templates resolve inside the URL, the headers and the answer (a JSON body's strings too).
      return [`await mockRoute(page, sd.tv(${lit(options)}));`];
    }
    case 'waitForResponse': {
      const { name: _name, description: _description, variable, ...options } = action;
      return [`await waitForResponse(sd, responses, sd.tv(${lit(options)}), ${lit(variable)});`];
    }
    case 'totp': {
      const options = {
        ...(action.digits === undefined ? {} : { digits: action.digits }),
        ...(action.period === undefined ? {} : { period: action.period }),
        ...(action.algorithm === undefined ? {} : { algorithm: action.algorithm }),
      };
      return [`sd.setVar(${lit(action.variable)}, totpCode(sd.t(${lit(action.secret)}), ${lit(options)}));`];
    }
    case 'assertAccessible': {
      const options = {
        ...(action.impact === undefined ? {} : { impact: action.impact }),
        ...(action.skipRules === undefined ? {} : { skipRules: action.skipRules }),
      };
      // No selector: the whole document, its root element included (page-level rules).
      return [
        `await assertAccessible(sd.locator(page, ${lit(action.selector ?? 'html')}), sd.tv(${lit(options)}));`,
      ];
    }
    default:
      return null;
  }
}

/** Network and accessibility steps act on the page; `totp` only computes (API tests may use it). */
export const NETWORK_PAGE_ACTIONS = ['mockRoute', 'waitForResponse', 'assertAccessible'];

/** Runtime file → the steps that need it and the npm packages it imports. */
export const NETWORK_RUNTIMES = [
  {
    file: 'stepdeck-network.ts',
    actions: ['mockRoute', 'waitForResponse'],
    exports: ['mockRoute', 'recordResponses', 'waitForResponse'],
    packages: [],
  },
  { file: 'stepdeck-totp.ts', actions: ['totp'], exports: ['totpCode'], packages: ['otpauth'] },
  {
    file: 'stepdeck-accessibility.ts',
    actions: ['assertAccessible'],
    exports: ['assertAccessible'],
    packages: ['axe-core'],
  },
] as const;

/** The spec's imports of those runtimes, for a test that uses the actions named by `uses`. */
export function networkSpecImports(uses: (names: Set<string>) => boolean): string[] {
  return NETWORK_RUNTIMES.filter((runtime) => uses(new Set(runtime.actions))).map(
    (runtime) => `import { ${runtime.exports.join(', ')} } from '../${runtime.file}';`,
  );
}

/**
 * The spec's setup for those steps: `waitForResponse` reads the log of the context's responses
 * from the test's start (a wait begun by the step itself would miss what the previous step caused).
 */
export function networkSpecSetup(uses: (names: Set<string>) => boolean): string[] {
  return uses(new Set(['waitForResponse'])) ? ['  const responses = recordResponses(page);'] : [];
}
