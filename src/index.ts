import { getState, saveState } from './workflow-commands.ts';

// The thin entrypoint of the one bundle (actions/typescript-action layout: the logic is
// src/main.ts's and src/post.ts's run(), which @github/local-action calls directly). The main
// step marks the saved state, so the post step, running the same file, finds it.
// Only the light modules load up front; the rest is imported once the inputs are valid.
if (getState('is-post') === 'true') {
  const { run } = await import('./post.ts');
  await run();
} else {
  saveState('is-post', 'true');
  const { run } = await import('./main.ts');
  await run();
}
