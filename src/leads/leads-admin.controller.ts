import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { STAFF } from '../common/http/write-routes';
import { LeadStatusWrites } from './lead-status-writes.controller';

/** Staff move a lead's status as the federation does, in the audit log. */
@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/leads')
export class LeadsAdminController extends LeadStatusWrites(STAFF) {}
