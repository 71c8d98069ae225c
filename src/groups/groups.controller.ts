import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Actor } from '../common/access/actor';
import { Admin, CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import { ApiProblems } from '../common/errors/problem.response';
import { PageQueryDto } from '../common/http/pagination.dto';
import type { TenantEntity } from '../tenants/tenant.entity';
import { CreateGroupDto, MoveMemberDto, UpdateGroupDto } from './dto/group-requests.dto';
import { GroupListResponse, GroupResponse, MemberGroupResponse } from './dto/group.response';
import { GroupsService } from './groups.service';

@ApiTags('admin')
@Controller('admin/v1/tenants/:slug')
export class GroupsController {
  constructor(private readonly groups: GroupsService) {}

  /**
   * Creates a partner group (docs/partners.md), optionally with its own program, signup settings
   * and promotion. A slug the tenant already has: 409 `conflict`.
   */
  @Post('groups')
  @Admin('manager')
  @ApiProblems(400, 401, 403, [404, 'group_not_found'], 409)
  create(
    @CurrentTenant() tenant: TenantEntity,
    @Body() dto: CreateGroupDto,
    @CurrentActor() actor: Actor,
  ): Promise<GroupResponse> {
    return this.groups.create(tenant.id, dto, actor);
  }

  /** The tenant's groups, newest first, each with its number of members. */
  @Get('groups')
  @Admin('viewer')
  @ApiProblems(400, 401, 403, 404)
  list(
    @CurrentTenant() tenant: TenantEntity,
    @Query() query: PageQueryDto,
  ): Promise<GroupListResponse> {
    return this.groups.list(tenant.id, query);
  }

  /** One group, with its number of members. */
  @Get('groups/:group_id')
  @Admin('viewer')
  @ApiProblems(401, 403, [404, 'group_not_found'])
  get(
    @CurrentTenant() tenant: TenantEntity,
    @Param('group_id') groupId: string,
  ): Promise<GroupResponse> {
    return this.groups.get(tenant.id, groupId);
  }

  /**
   * Changes a group's name, program (null: the tenant's default pays), signup settings or
   * promotion (null: none). The slug stays.
   */
  @Patch('groups/:group_id')
  @Admin('manager')
  @ApiProblems(400, 401, 403, [404, 'group_not_found'])
  update(
    @CurrentTenant() tenant: TenantEntity,
    @Param('group_id') groupId: string,
    @Body() dto: UpdateGroupDto,
    @CurrentActor() actor: Actor,
  ): Promise<GroupResponse> {
    return this.groups.update(tenant.id, groupId, dto, actor);
  }

  /**
   * Moves a member (`usr_…` or `mbr_…`) to another group: audited, and `partner.group_changed`
   * (reason `manual`). Moving a member to the group they are in changes nothing and emits nothing.
   */
  @Post('users/:user_id/group')
  @HttpCode(200)
  @Admin('manager')
  @ApiProblems(400, 401, 403, [404, 'user_not_found'], [404, 'group_not_found'])
  move(
    @CurrentTenant() tenant: TenantEntity,
    @Param('user_id') userId: string,
    @Body() dto: MoveMemberDto,
    @CurrentActor() actor: Actor,
  ): Promise<MemberGroupResponse> {
    return this.groups.moveMember(tenant.id, userId, dto.group_id, actor);
  }
}
