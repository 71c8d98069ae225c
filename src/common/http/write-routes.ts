import { applyDecorators, HttpCode, Post } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { StaffRole } from '../access/actor';
import { Admin } from '../access/access.decorators';
import { ApiProblems } from '../errors/problem.response';

type Problem = number | [number, string];

/**
 * A federation write (a controller under `@TenantKey()`): `POST path` answering 200, which can
 * refuse its body (400) and the tenant key (401 `invalid_tenant_key`) besides `problems`.
 */
export const FederationPost = (path: string, ...problems: Problem[]) =>
  applyDecorators(
    Post(path),
    HttpCode(200),
    ApiProblems(400, [401, 'invalid_tenant_key'], ...problems),
  );

/**
 * A staff write: `POST path` answering 200 for staff of at least `role`, which can refuse its body
 * (400), the credential (401) and the role (403) besides `problems`.
 */
export const AdminPost = (path: string, role: StaffRole, ...problems: Problem[]) =>
  applyDecorators(Post(path), HttpCode(200), Admin(role), ApiProblems(400, 401, 403, ...problems));

/**
 * A write that the Federation API and the Admin API both offer with the same body (a lead's
 * status, a conversion, a payout's settlement: docs/architecture.md, "One write, two surfaces"),
 * described once for both: its path, what it does, the least staff role the Admin API asks for,
 * and the refusals it can answer besides the surface's own.
 */
export interface SharedWrite {
  path: string;
  /** The operation's summary in the OpenAPI document, on both surfaces. */
  summary: string;
  role: StaffRole;
  problems: Problem[];
}

/** `write` on the Federation API: the tenant key decides; the role is not asked. */
export const FederationWrite = ({ path, summary, problems }: SharedWrite) =>
  applyDecorators(FederationPost(path, ...problems), ApiOperation({ summary }));

/** `write` on the Admin API, under `/admin/v1/tenants/:slug/…`, for staff of its role or higher. */
export const StaffWrite = ({ path, summary, role, problems }: SharedWrite) =>
  applyDecorators(AdminPost(path, role, ...problems), ApiOperation({ summary }));

/** A summary of several lines, kept as the lines they are written in. */
export const lines = (...text: string[]) => text.join('\n');
