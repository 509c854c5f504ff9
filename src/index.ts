import * as core from '@actions/core';
import { run } from './main.ts';
import { runPost } from './post.ts';

// One bundle for both steps: the main step marks the saved state, the post step finds it.
if (core.getState('is-post') === 'true') {
  await runPost();
} else {
  core.saveState('is-post', 'true');
  await run();
}
