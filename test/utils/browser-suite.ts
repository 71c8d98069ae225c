import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import { freePort, launchBrowser } from './browser';
import { createTestApp, type TestApp } from './create-test-app';
import { type SmtpCatcher, startSmtpCatcher } from './smtp-catcher';

export interface BrowserSuiteOptions {
  /** Start an SMTP catcher and point the service's mail at it (the popup sign-in needs one). */
  smtp?: boolean;
  /** More environment for the service. */
  env?: NodeJS.ProcessEnv;
  /** Defaults for every context `newContext()` opens (a viewport, say). */
  context?: BrowserContextOptions;
  /** Playwright's default timeout in the suite's contexts (10 s). */
  timeoutMs?: number;
}

/**
 * What a browser test needs: the real service listening on a free loopback port (its own origin,
 * `base`), a headless Chromium, the SMTP catcher when asked for, and every context it opened.
 * `close()` closes all of it and whatever `onClose` registered, each step even if one fails.
 */
export interface BrowserSuite {
  t: TestApp;
  base: string;
  browser: Browser;
  /** Present when the suite was started with `smtp: true`. */
  smtp: SmtpCatcher;
  /** Console lines of every context that mention a Content-Security-Policy violation. */
  cspViolations: string[];
  /** A new context (`timeoutMs`, CSP lines collected), closed with the suite. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** Something else to close with the suite (a test's own server). */
  onClose(step: () => unknown): void;
  close(): Promise<void>;
}

export async function startBrowserSuite(options: BrowserSuiteOptions = {}): Promise<BrowserSuite> {
  const steps: (() => unknown)[] = [];
  const close = async () => {
    for (const step of steps.splice(0).reverse()) {
      try {
        await step();
      } catch {
        // Keep closing the rest.
      }
    }
  };
  try {
    const smtp = options.smtp ? await startSmtpCatcher() : undefined;
    if (smtp) steps.push(() => smtp.close());
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const t = await createTestApp({
      PORT: String(port),
      PUBLIC_BASE_URL: base,
      ...(smtp ? { SMTP_URL: smtp.url } : {}),
      ...options.env,
    });
    steps.push(() => t.close());
    await t.app.listen(port, '127.0.0.1');
    const browser = await launchBrowser();
    steps.push(() => browser.close());
    const cspViolations: string[] = [];
    return {
      t,
      base,
      browser,
      smtp: smtp as SmtpCatcher,
      cspViolations,
      async newContext(contextOptions = {}) {
        const context = await browser.newContext({ ...options.context, ...contextOptions });
        steps.push(() => context.close());
        context.setDefaultTimeout(options.timeoutMs ?? 10_000);
        context.on('console', (message) => {
          if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
        });
        return context;
      },
      onClose: (step) => void steps.push(step),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
