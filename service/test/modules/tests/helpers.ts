import type { TestApp } from '../../helper.ts';

/** Builds a multipart body by hand-free means: FormData serialised through Request. */
export async function multipart(
  fields: Record<string, string>,
  files: Array<{ field?: string; filename: string; content: Buffer | string }> = [],
) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  for (const file of files)
    form.append(
      file.field ?? 'files',
      new Blob([typeof file.content === 'string' ? file.content : new Uint8Array(file.content)]),
      file.filename,
    );
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  const body = Buffer.from(await request.arrayBuffer());
  return { payload: body, headers: { 'content-type': request.headers.get('content-type') as string } };
}

export async function createTest(
  t: TestApp,
  testData: Record<string, unknown>,
  options: {
    files?: Array<{ filename: string; content: Buffer | string }>;
    headers?: Record<string, string>;
  } = {},
) {
  const form = await multipart({ testData: JSON.stringify(testData) }, options.files);
  const response = await t.api({
    method: 'POST',
    url: '/v1/tests',
    payload: form.payload,
    headers: { ...form.headers, ...options.headers },
  });
  if (response.statusCode !== 200) throw new Error(`create failed: ${response.statusCode} ${response.body}`);
  return response.json().data as { id: string; parentTestId: string | null };
}

export async function updateTest(
  t: TestApp,
  testId: string,
  testData: Record<string, unknown>,
  options: {
    files?: Array<{ filename: string; content: Buffer | string }>;
    headers?: Record<string, string>;
  } = {},
) {
  const form = await multipart({ testData: JSON.stringify(testData) }, options.files);
  return t.api({
    method: 'PUT',
    url: `/v1/tests/${testId}`,
    payload: form.payload,
    headers: { ...form.headers, ...options.headers },
  });
}

export const gotoStep = (url: string, name = `open ${url}`) => ({ name, action: { name: 'goto', url } });
