import { INestApplication, ValidationPipe, type ValidationPipeOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import type { Server } from 'node:http';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { CREDENTIAL_SCHEMES } from './common/access/access.decorators';
import { validationExceptionFactory } from './common/errors/validation';
import { FORM_PATHS, formBodyMiddlewares } from './common/http/form-body';
import { answerClientErrors, requestTargetMiddleware } from './common/http/hostile-input';
import { jsonBodyMiddlewares } from './common/http/json-body';
import { requestIdMiddleware } from './common/http/request-id';
import { httpMetricsMiddleware } from './common/metrics/http-metrics';
import { AppConfig } from './config/app-config';
import { parseQuery } from './common/http/query';
import { operationId } from './common/http/operation-ids';
import { trustProxyFn } from './config/trust-proxy';
import { FastLanes, headersSetBy } from './fast-lanes/fast-lanes';

/**
 * Builds the HTTP application exactly as production runs it. `main.ts` and the end-to-end tests
 * both call this, so the tests exercise the real pipes, filters, guards and middleware.
 */
export async function createApp(config: AppConfig): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  // No SHA-1 of every JSON answer (~0.1–0.2 ms each): no API client sends If-None-Match, and the
  // widget script, which is revalidated, sets its own version ETag.
  app.set('etag', false);
  // Whose X-Forwarded-For names the client for req.ip and the per-IP rate limits: nobody's unless
  // TRUST_PROXY says so (src/config/trust-proxy.ts). Both settings are given as the functions the
  // fast lanes call too (Express documents the function form of each).
  app.set('trust proxy', trustProxyFn(config.trustProxy));
  app.set('query parser', parseQuery);
  // The popup must keep window.opener on every response of its flow, redirects included (docs/embedding.md),
  // so /oauth gets helmet without Cross-Origin-Opener-Policy.
  const headers = helmet();
  const popupHeaders = helmet({ crossOriginOpenerPolicy: false });
  const securityHeaders = (path: string) => (path.startsWith('/oauth/') ? popupHeaders : headers);
  app.use(requestIdMiddleware, httpMetricsMiddleware);
  app.use((req: Request, res: Response, next: NextFunction) =>
    securityHeaders(req.path)(req, res, next),
  );
  // Control characters, unpaired surrogates, bad escapes or overlong text in the path or query:
  // 400 before anything reads them (common/http/hostile-input.ts).
  app.use(requestTargetMiddleware);
  // The HTML pages (popup, landing page, admin pages) post plain forms, and nothing else.
  app.use(FORM_PATHS, ...formBodyMiddlewares());
  app.use(...jsonBodyMiddlewares());
  const validationOptions: ValidationPipeOptions = {
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: validationExceptionFactory,
  };
  const validation = new ValidationPipe(validationOptions);
  app.useGlobalPipes(validation);
  setupOpenApi(app, config);
  // The `@FastLane()` routes, answered ahead of Express from the same definitions, pipe and
  // security headers (docs/architecture.md, "Fast lanes").
  const captured = { api: headersSetBy(headers), popup: headersSetBy(popupHeaders) };
  app.get(FastLanes).install(app, {
    validation: { pipe: validation, options: validationOptions },
    securityHeaders: (path) => (securityHeaders(path) === headers ? captured.api : captured.popup),
  });
  // What Node's HTTP parser refuses (a target or headers over 16 KiB) is a problem document too.
  answerClientErrors(app.getHttpServer());
  applyKeepAlive(app.getHttpServer(), config.httpKeepAliveTimeoutMs);
  boundHttpDrain(app);
  app.enableShutdownHooks();
  return app;
}

/**
 * How long shutdown lets the requests in flight finish once the server stops accepting: then their
 * connections are closed (a body still trickling in, a slow reader of an export), so SIGTERM ends
 * the process within its grace period (docs/operations.md, "Stopping") whatever a client does.
 */
export const HTTP_DRAIN_MS = 4_000;

function boundHttpDrain(app: NestExpressApplication): void {
  const adapter = app.getHttpAdapter();
  const close = adapter.close.bind(adapter);
  adapter.close = () => {
    const server = app.getHttpServer();
    const cut = setTimeout(() => server.closeAllConnections(), HTTP_DRAIN_MS);
    cut.unref();
    return Promise.resolve(close()).finally(() => clearTimeout(cut));
  };
}

/**
 * Idle keep-alive connections stay open longer than a load balancer's own idle timeout (60 s on
 * the common ones), so the balancer, not Node, closes them: Node's 5 s default makes it reuse a
 * connection Node is closing, and the client gets a 502. Headers get a second more than that, as
 * Node requires headersTimeout above keepAliveTimeout for a reused connection.
 */
export function applyKeepAlive(server: Server, keepAliveTimeoutMs: number): void {
  server.keepAliveTimeout = keepAliveTimeoutMs;
  server.headersTimeout = keepAliveTimeoutMs + 1000;
}

export function setupOpenApi(app: INestApplication, config: AppConfig): void {
  const builder = new DocumentBuilder()
    .setTitle('Referral and partner-program service')
    .setDescription(
      'Federation API (tenant back ends), Admin API (platform and tenant staff), Embed APIs ' +
        '(widgets), operations. Errors are RFC 9457 problem documents (application/problem+json).',
    )
    .setVersion('1')
    .setLicense('MIT', 'https://opensource.org/licenses/MIT')
    .addServer(config.publicBaseUrl);
  // Every credential kind, as the access decorators name them in each operation's security.
  for (const [name, scheme] of Object.entries(CREDENTIAL_SCHEMES))
    builder.addSecurity(name, scheme);
  const document = SwaggerModule.createDocument(
    app,
    builder
      // In this order in the UI; the last four answer browsers: HTML pages, redirects and forms.
      .addTag('federation', "The tenant's back end: users, leads, conversions.")
      .addTag('admin', 'The platform operator and tenant staff.')
      .addTag('embed', 'The widgets: their data and actions, and the widget script.')
      .addTag('operations', 'Health and metrics.')
      .addTag('popup', 'The sign-in popup (docs/embedding.md), opened by the widgets. HTML pages.')
      .addTag('short-links', 'Short referral links: a redirect, or a landing page. HTML pages.')
      .addTag('admin-pages', 'The organisation admin pages under /org. HTML pages.')
      .addTag('demo', 'Every widget on one page, outside production only. HTML page.')
      .build(),
    { operationIdFactory: operationId },
  );
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
  });
}
