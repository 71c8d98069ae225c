import { SetMetadata } from '@nestjs/common';

export const FAST_LANE = 'fast-lanes:route';

/**
 * Also answers this GET route on the HTTP server ahead of Express and Nest (FastLanes), for the
 * rates the rest of the API never sees. Nothing else is declared for the lane: its path, query
 * DTO, access policy, rate limits, status, headers and answer are read from this route's own
 * decorators at start-up (docs/architecture.md, "Fast lanes"). Whatever the handler or its access
 * refuses is handed on to the pipeline, which answers it; so the handler must be safe to run again
 * when it throws (a read). Only where a benchmark shows the framework is the cost.
 */
export const FastLane = () => SetMetadata(FAST_LANE, true);
