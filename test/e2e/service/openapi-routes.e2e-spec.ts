// The OpenAPI document lists every route the application serves, HTML pages,
// scripts and operations included, and nothing it does not serve. The served routes are read from
// the running app's Express router (what Nest really registered), not from a list kept by hand;
// the fast lanes, which answer ahead of Express, name their routes, and each must be a documented
// controller route too.
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { METHODS } from 'node:http';
import { FastLanes } from '../../../src/fast-lanes/fast-lanes';
import { createTestApp, TestApp } from '../../utils/create-test-app';

type Operation = {
  tags?: string[];
  summary?: string;
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
};
type OpenApi = { paths: Record<string, Record<string, Operation>> };

type RouterLayer = {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: RouterLayer[] };
};

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'trace'];
const ALL_METHODS = METHODS.map((method) => method.toLowerCase());

/**
 * What SwaggerModule.setup registers to serve the document and its UI (setupOpenApi): the
 * documentation of the API, not part of it.
 */
const DOCUMENTATION = /^\/docs(\/|$)/;

/** The features that answer with HTML pages (docs/architecture.md, "Auth policies"). */
const HTML_PAGES = /^\/(oauth|s|org|demo)(\/|$)/;

/** Express pattern `/a/:b/c.:d.js` as an OpenAPI path `/a/{b}/c.{d}.js`. */
function toOpenApiPath(pattern: string): string {
  if (/[*?()[\]{}]/.test(pattern)) {
    throw new Error(`route ${pattern}: optional or wildcard segments cannot be compared`);
  }
  return pattern.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

/** Every method and path the Express router of the running app answers, e.g. `GET /s/{code}`. */
function servedRoutes(t: TestApp): string[] {
  const express = t.app.getHttpAdapter().getInstance() as {
    router: { stack: RouterLayer[] };
    get(setting: string): unknown;
  };
  // Without strict routing `/org/` and `/org` are one route to Express (middleware bound to a
  // controller is mounted on its root route as `/org/`), so they are one here too.
  const strict = Boolean(express.get('strict routing'));
  const normalise = (path: string) => {
    const openApi = toOpenApiPath(path);
    return strict || openApi === '/' ? openApi : openApi.replace(/\/+$/, '');
  };
  const routes = new Set<string>();
  const walk = (stack: RouterLayer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths) {
          const methods = Object.keys(layer.route.methods);
          // Registered with all(): how Nest mounts module middleware for every method (request
          // logging on `/{*path}`, the embed CORS middleware on `/embed/*path`), not an endpoint.
          // No handler is an @All() one (checked below), so skipping these hides no endpoint.
          // (Middleware bound to a controller's routes is mounted on those routes' own methods
          // and paths, so it adds nothing to the table.)
          if (ALL_METHODS.every((method) => methods.includes(method))) continue;
          for (const method of methods) {
            routes.add(`${method.toUpperCase()} ${normalise(path)}`);
          }
        }
      } else if (layer.handle?.stack) {
        // A mounted router: the app registers none today; if one appears, its routes' prefix is
        // not recoverable from Express 5, so refuse rather than compare wrong paths.
        if (layer.handle.stack.some((inner) => inner.route)) {
          throw new Error('a mounted router with routes: enumerate it with its mount path');
        }
      }
    }
  };
  walk(express.router.stack);
  return [...routes].filter((route) => !DOCUMENTATION.test(route.split(' ')[1])).sort();
}

function documentedRoutes(doc: OpenApi): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => HTTP_METHODS.includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    )
    .sort();
}

function operation(doc: OpenApi, route: string): Operation | undefined {
  const [method, path] = route.split(' ');
  return doc.paths[path]?.[method.toLowerCase()];
}

/** The media types an operation declares for any response, without parameters. */
function responseTypes(op: Operation): Set<string> {
  return new Set(
    Object.values(op.responses ?? {}).flatMap((response) =>
      Object.keys(response.content ?? {}).map((type) => type.split(';')[0].trim()),
    ),
  );
}

/** A request path for a route, each `{param}` filled with a value that names nothing. */
function probePath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, 'zzzzzzzz');
}

describe('OpenAPI document vs the routes served', () => {
  let t: TestApp;
  let doc: OpenApi;
  let served: string[];

  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.http().get('/docs/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body as OpenApi;
    served = servedRoutes(t);
  });
  afterAll(() => t.close());

  it('reads a plausible route table from the app', () => {
    // Guards the enumeration itself: an empty or JSON-only list would make the rest vacuous.
    expect(served).toEqual(
      expect.arrayContaining([
        'GET /health/live',
        'POST /federation/v1/users/upsert',
        'GET /oauth/authorize',
        'GET /s/{code}',
        'GET /org/{slug}/bonuses',
        'GET /embed/v1/widget.js',
      ]),
    );
  });

  it('has no @All() handler, which the route table would take for middleware', () => {
    const all: string[] = [];
    for (const module of t.app.get(ModulesContainer).values()) {
      for (const wrapper of module.controllers.values()) {
        const proto = (wrapper.metatype as { prototype?: object } | null)?.prototype;
        for (let p = proto; p && p !== Object.prototype; p = Object.getPrototypeOf(p) as object) {
          for (const name of Object.getOwnPropertyNames(p)) {
            const handler = Object.getOwnPropertyDescriptor(p, name)?.value as unknown;
            if (typeof handler !== 'function') continue;
            if (Reflect.getMetadata(METHOD_METADATA, handler) === RequestMethod.ALL) {
              all.push(`${wrapper.name}.${name}`);
            }
          }
        }
      }
    }
    expect(all).toEqual([]);
  });

  it('documents every route the app serves', () => {
    const documented = new Set(documentedRoutes(doc));
    expect(served.filter((route) => !documented.has(route))).toEqual([]);
  });

  it('documents no operation the app does not serve', () => {
    const routes = new Set(served);
    expect(documentedRoutes(doc).filter((route) => !routes.has(route))).toEqual([]);
  });

  it('documents and serves every route a fast lane answers ahead of Express', () => {
    const documented = new Set(documentedRoutes(doc));
    const routes = new Set(served);
    const lanes = t.app.get(FastLanes).patterns.map((route) => {
      const [method, path] = route.split(' ');
      return `${method} ${toOpenApiPath(path)}`;
    });
    expect(lanes.length).toBeGreaterThanOrEqual(6);
    expect(lanes.filter((route) => !routes.has(route) || !documented.has(route))).toEqual([]);
  });

  it('declares a text/html response on every route of the HTML pages', () => {
    // Each of them answers a page, if only its error page, even where success is a redirect.
    const offenders = served
      .filter((route) => HTML_PAGES.test(route.split(' ')[1]))
      .filter((route) => !responseTypes(operation(doc, route) ?? {}).has('text/html'));
    expect(offenders).toEqual([]);
  });

  it('declares the form body of every HTML form post', () => {
    const offenders = served
      .filter((route) => route.startsWith('POST ') && HTML_PAGES.test(route.split(' ')[1]))
      .filter((route) => {
        const content = operation(doc, route)?.requestBody?.content ?? {};
        return !('application/x-www-form-urlencoded' in content);
      });
    expect(offenders).toEqual([]);
  });

  it('gives every API operation a summary and its success answer', () => {
    // What the OpenAPI compiler plugin adds from a handler's comment and return type; a handler
    // it cannot read (a decorator it does not recognise, a file it does not visit) loses both.
    const offenders = documentedRoutes(doc)
      .filter((route) => /^\/(federation|admin|embed)\//.test(route.split(' ')[1]))
      .filter((route) => {
        const op = operation(doc, route)!;
        const success = Object.entries(op.responses ?? {}).filter(([code]) => /^2/.test(code));
        const bodiless = ([code, answer]: [string, { content?: object }]) =>
          (code === '200' || code === '201') && !answer.content;
        return !op.summary || !success.length || success.some(bodiless);
      });
    expect(offenders).toEqual([]);
  });

  it('tags every operation', () => {
    const offenders = documentedRoutes(doc).filter((route) => !operation(doc, route)?.tags?.length);
    expect(offenders).toEqual([]);
  });

  it('declares every media type other than JSON that a GET route answers with', async () => {
    // Each served GET route is requested as a browser would, with unknown values for its
    // parameters and no credentials (so nothing changes); whatever it answers besides JSON and
    // problem documents (an HTML page, a script, the metrics text) must be in its operation.
    const offenders: string[] = [];
    for (const route of served.filter((r) => r.startsWith('GET '))) {
      const path = route.slice(4);
      const res = await t.http().get(probePath(path)).set('Accept', 'text/html,*/*;q=0.8');
      if (res.status >= 300 && res.status < 400) continue;
      const type = String(res.headers['content-type'] ?? '')
        .split(';')[0]
        .trim();
      if (!type || type === 'application/json' || type === 'application/problem+json') continue;
      const op = operation(doc, route);
      if (!op || !responseTypes(op).has(type)) offenders.push(`${route}: ${res.status} ${type}`);
    }
    expect(offenders).toEqual([]);
  });
});
