import { expect, test } from '@playwright/test';
import { bootstrap, createTest, signInFresh } from './fixtures.ts';

/**
 * Opening the tests page directly (a bookmark, a link): index.html's start-up script asks for the
 * tree's top level while the app loads, and the app uses that answer instead of asking again.
 */
test.describe('start-up requests', () => {
  test('the tests tree is listed once, by the early request, and a filtered page asks itself', async ({
    page,
  }) => {
    const name = `early tree ${Date.now()}`;
    await createTest({ name, status: 'active', steps: [] });
    await signInFresh(page);
    const listRequests: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/v1/tests') listRequests.push(url.search);
    });
    const testsPage = `/console/projects/${bootstrap().projectId}/tests`;
    await page.goto(testsPage);
    await expect(page.getByRole('rowheader').filter({ hasText: name })).toBeVisible();
    const left = await page.evaluate(() =>
      Object.keys((window as unknown as { __stepdeckEarly?: Record<string, unknown> }).__stepdeckEarly ?? {}),
    );
    expect(left).toEqual([]);
    // The tree's top level only (directories load their children when expanded).
    expect(listRequests).toEqual(['?limit=10000&type=all&topLevel=true']);

    // A filter in the URL is not what the early request asks for: the page asks for its own list.
    listRequests.length = 0;
    await page.goto(`${testsPage}?name=${encodeURIComponent(name)}`);
    await expect(page.getByRole('rowheader').filter({ hasText: name })).toBeVisible();
    expect(listRequests).toContain(
      `?limit=10000&type=all&name=${encodeURIComponent(name).replaceAll('%20', '+')}`,
    );
    expect(
      await page.evaluate(() =>
        Object.keys(
          (window as unknown as { __stepdeckEarly?: Record<string, unknown> }).__stepdeckEarly ?? {},
        ),
      ),
    ).toEqual([]);
  });
});
