import { applyDecorators, HttpCode, Post } from '@nestjs/common';
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
