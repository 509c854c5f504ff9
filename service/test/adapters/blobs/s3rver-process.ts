/**
 * Runs s3rver in its own process: `node --openssl-legacy-provider s3rver-process.ts <dir> <bucket>`.
 * s3rver 3.7.1 encrypts ListObjectsV2 continuation tokens with DES, which OpenSSL 3 (Node >= 17)
 * only offers through its legacy provider. Prints `{"port":N}` once listening.
 */
import S3rver from 's3rver';

const [directory, bucket] = process.argv.slice(2);
if (!directory || !bucket) throw new Error('usage: s3rver-process.ts <directory> <bucket>');
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: [{ name: bucket, configs: [] }],
});
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
const stop = () => {
  server.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The parent's end closes stdin: stop with it, never outlive the test run.
process.stdin.on('end', stop);
process.stdin.resume();
