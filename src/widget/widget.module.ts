import { Module } from '@nestjs/common';
import { TenantsModule } from '../tenants/tenants.module';
import { WidgetAsset } from './widget-asset';
import { WidgetController } from './widget.controller';

/** The widget script (`/embed/v1/widget.js`, docs/embedding.md §11); its APIs live elsewhere. */
@Module({
  imports: [TenantsModule],
  controllers: [WidgetController],
  providers: [WidgetAsset],
  exports: [WidgetAsset],
})
export class WidgetModule {}
