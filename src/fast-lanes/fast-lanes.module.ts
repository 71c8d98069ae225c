import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { FastLanes } from './fast-lanes';

/** The routes marked `@FastLane()`, answered ahead of Express (app.setup.ts installs them). */
@Module({
  imports: [DiscoveryModule],
  providers: [FastLanes],
  exports: [FastLanes],
})
export class FastLanesModule {}
