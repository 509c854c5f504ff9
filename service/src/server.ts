import { runProcess } from './process.ts';

/** `npm start`: the service on the embedded default (SQLite and files under DATA_DIR). */
await runProcess('api');
