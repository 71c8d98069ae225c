import { applyDecorators, SetMetadata, UseFilters, UseInterceptors } from '@nestjs/common';
import { BACK_METADATA, type BackTarget } from './page';
import { PageFilter } from './page.filter';
import { PageInterceptor } from './page.interceptor';

/**
 * A controller of HTML pages: its handlers return HtmlPage or Redirect (PageInterceptor sends
 * them), and their errors become pages or post/redirect/get (PageFilter).
 */
export function Pages(): ClassDecorator {
  return applyDecorators(UseInterceptors(PageInterceptor), UseFilters(PageFilter));
}

/**
 * A form post whose refusal (a DomainError: a validation failure, a conflict, a missing row) goes
 * back to `path` with `?error=<message>` (post/redirect/get), as its successes do with `notice`.
 * `:name` segments are filled from the route's parameters.
 */
export function Back(path: string): MethodDecorator {
  const target: BackTarget = (params) =>
    path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  return SetMetadata(BACK_METADATA, target);
}
