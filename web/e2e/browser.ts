/**
 * Debian's Chromium driven by playwright-core (TOOLCHAIN-NOTES gotcha 8): headless, no sandbox,
 * no background networking, and a fresh profile directory per run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // A fake microphone and camera, allowed without a prompt (voice notes, camera capture).
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
];

export interface Browser {
  context: BrowserContext;
  close: () => Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'chatflow-e2e-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 800 },
    locale: 'pt-BR',
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
