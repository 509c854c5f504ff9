#!/usr/bin/env node
// The CLI's entry stays tiny and free of static imports: the bundle's modules (undici, zod)
// use Node 24 APIs at load time, so on an older Node the import below would die with a
// TypeError stack before any check could run. The check comes first; the rest is imported only
// on a Node it runs on.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(`stepdeck needs Node 24 or newer; this is Node ${process.version}\n`);
  process.exitCode = 2;
} else {
  const { main } = await import('./cli-main.ts');
  process.exitCode = await main(process.argv.slice(2));
}
