import { Module } from '@nestjs/common';
import { TenantsModule } from '../tenants/tenants.module';
import { WidgetAsset } from './widget-asset';
import { WidgetController } from './widget.controller';

/** The widget script of SPEC 8 (`/embed/v1/widget.js`); the Embed APIs it calls live elsewhere. */
@Module({
  imports: [TenantsModule],
  controllers: [WidgetController],
  providers: [WidgetAsset],
  exports: [WidgetAsset],
})
export class WidgetModule {}
