import type { IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import type { FastLane, LaneContext } from '../common/http/fast-lane';
import { DeeplinksService } from './deeplinks.service';

const SHORT_LINK_PATH = /^\/s\/[A-Za-z0-9]{8}$/;

/**
 * `GET /s/:code` for links whose redirect is already in memory: a short link is followed at the
 * rate a partner's audience clicks, and its answer is a constant 302 (docs/architecture.md, "Fast
 * lanes"). The click is counted (ClickCounter). A first visit, a landing page, an unknown code or
 * a query string go through the controller, which fills the cache.
 */
@Injectable()
export class ShortLinkLane implements FastLane {
  readonly routes = ['GET /s/:code'];

  constructor(private readonly links: DeeplinksService) {}

  handle(req: IncomingMessage, { reply }: LaneContext): boolean {
    if (req.method !== 'GET' || !req.url || !SHORT_LINK_PATH.test(req.url)) return false;
    const location = this.links.followCachedRedirect(req.url.slice(3));
    if (location === undefined) return false;
    reply(302, '/s/:code', { Location: location, 'Cache-Control': 'no-store' });
    return true;
  }
}
