import { multipart, type TestApp } from '../../helper.ts';

export { createTest, multipart } from '../../helper.ts';

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
