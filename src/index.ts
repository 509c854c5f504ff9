import { getState, saveState } from './runner.ts';

// One bundle for both steps: the main step marks the saved state, the post step finds it.
// Only the light modules load up front; the rest is imported once the inputs are valid.
if (getState('is-post') === 'true') {
  const { runPost } = await import('./post.ts');
  await runPost();
} else {
  saveState('is-post', 'true');
  const { run } = await import('./main.ts');
  await run();
}
