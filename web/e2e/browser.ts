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

export interface LaunchOptions {
  /** The window's inner size; default 1280×800. */
  viewport?: { width: number; height: number };
  /** The system theme the page sees (the app follows it until the user picks one). */
  colorScheme?: 'light' | 'dark';
  /** The browser's language; default pt-BR. */
  locale?: string;
  /** A touch screen that reports itself as a phone (for phone-sized viewports). */
  mobile?: boolean;
}

export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'chatflow-e2e-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: options.viewport ?? { width: 1280, height: 800 },
    colorScheme: options.colorScheme ?? 'light',
    locale: options.locale ?? 'pt-BR',
    ...(options.mobile ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
