import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { STAFF } from '../common/http/write-routes';
import { ConversionWrites } from './conversion-writes.controller';

/** Staff make the federation's conversion writes (docs/money.md §4), in the audit log. */
@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/conversions')
export class ConversionsAdminController extends ConversionWrites(STAFF) {}
