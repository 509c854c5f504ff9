import dgram from 'node:dgram';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChromium } from '../../../src/runner/browser.ts';
import { compileProject, executeProject } from '../../../src/runner/index.ts';
import { createTestApp, type TestApp } from '../../helper.ts';
import { removeTempDirs, step, tempDir, uiTest } from '../../runner/fixtures.ts';
import { attackerCiKey, multipart, waitForStatus } from './helpers.ts';

/**
 * WebRTC is the one way a page sends packets that no HTTP proxy sees: ICE gathering sends
 * STUN requests over UDP straight from the browser's network service. An attacker's page
 * points its STUN servers at a UDP port of the host (here a listener standing for DNS, statsd or
 * a metadata agent) and at the cloud-metadata address. With the runner's egress rules on,
 * Chromium is told to use no UDP that the proxy does not carry (the service always runs the
 * proxy, whatever its rules allow), so nothing arrives. The same steps run as an exported
 * project (no service, no proxy, WebRTC as Playwright has it) do send their packets: the probe
 * is real.
 */
/** A UDP listener on the host, counting what arrives. */
async function udpListener() {
  const socket = dgram.createSocket('udp4');
  const listener = { port: 0, datagrams: 0, close: () => socket.close() };
  socket.on('message', () => {
    listener.datagrams++;
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  listener.port = (socket.address() as AddressInfo).port;
  return listener;
}

/** ICE gathering towards a STUN server on the host's UDP port and on the metadata address. */
const gather = (udpPort: number) => ({
  name: 'evaluate' as const,
  script: `const pc = new RTCPeerConnection({ iceServers: [{ urls: ['stun:127.0.0.1:${udpPort}', 'stun:169.254.169.254:3478'] }] });
pc.createDataChannel('probe');
await pc.setLocalDescription(await pc.createOffer());
await new Promise((resolve) => setTimeout(resolve, 4000));
return pc.iceGatheringState;`,
});

describe('WebRTC from a run’s page', () => {
  let site: http.Server;
  let siteUrl = '';
  beforeAll(async () => {
    site = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><title>Attacker</title><h1>attacker</h1>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    site?.close();
    await removeTempDirs();
  });

  it('sends no UDP to the host from a run of the service, whatever the egress rules allow', async () => {
    for (const env of [{}]) {
      const udp = await udpListener();
      const t: TestApp = await createTestApp({
        background: true,
        env: { RATE_LIMIT_PER_MINUTE: '100000', ...env },
      });
      try {
        const attacker = await attackerCiKey(t);
        const form = await multipart({
          testData: JSON.stringify({
            status: 'active',
            name: 'stun probe',
            steps: [
              { name: 'open', action: { name: 'goto', url: siteUrl } },
              { name: 'gather', action: gather(udp.port) },
            ],
          }),
        });
        const saved = await t.app.inject({
          method: 'POST',
          url: '/v1/tests',
          payload: form.payload,
          headers: { ...form.headers, ...attacker },
        });
        expect(saved.statusCode, saved.body).toBe(200);
        const started = await t.app.inject({
          method: 'POST',
          url: `/v1/tests/${saved.json().data.id}/remote-run`,
          headers: attacker,
          payload: {},
        });
        expect(started.statusCode, started.body).toBe(200);
        const api = (inject: Parameters<TestApp['api']>[0]) => t.app.inject({ ...inject, headers: attacker });
        const run = await waitForStatus(
          { ...t, api },
          started.json().data.runId,
          ['completed', 'failed'],
          120_000,
        );
        // The page ran to its end: WebRTC itself works, only its direct UDP is not sent.
        expect(run.status, JSON.stringify(env)).toBe('completed');
        expect(udp.datagrams, JSON.stringify(env)).toBe(0);
      } finally {
        await t.close();
        udp.close();
      }
    }
  }, 300_000);

  it('does send STUN over UDP to the host from the same steps exported (the probe is real)', async () => {
    const resolved = await resolveChromium();
    if (!resolved.ok) throw new Error(resolved.problem);
    const udp = await udpListener();
    try {
      const project = compileProject({
        tests: [
          uiTest('abababab-0000-4000-8000-0000000000f1', 'stun probe', [
            step('open', { name: 'goto', url: siteUrl }),
            step('gather', gather(udp.port)),
          ]),
        ],
        config: null,
        secretNames: [],
      });
      const result = await executeProject({
        dir: await tempDir('webrtc'),
        project,
        env: { CHROMIUM_PATH: resolved.browser.executablePath },
        signal: new AbortController().signal,
      });
      expect(result.status, result.log).toBe('passed');
      expect(udp.datagrams).toBeGreaterThan(0);
    } finally {
      udp.close();
    }
  }, 120_000);
});
