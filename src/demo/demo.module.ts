import { Module } from '@nestjs/common';
import { BonusesModule } from '../bonuses/bonuses.module';
import { GroupsModule } from '../groups/groups.module';
import { LeadsModule } from '../leads/leads.module';
import { TenantsModule } from '../tenants/tenants.module';
import { MembersModule } from '../members/members.module';
import { WidgetModule } from '../widget/widget.module';
import { DemoBuilder } from './demo-builder.service';
import { DemoController } from './demo.controller';
import { DemoSeeder } from './demo-seeder.service';
import { DemoRepository } from './demo.repository';

/**
 * The demo (README.md): tenant `demo` seeded on a development server's first start (or by the CLI's
 * `demo:seed`), and `/demo`, a tenant-like page that embeds every widget. A development module:
 * `AppModule` leaves it out under `NODE_ENV=production`. Conversions and short links come from
 * their modules' services through the module reference (those modules do not export them).
 */
@Module({
  imports: [TenantsModule, MembersModule, LeadsModule, BonusesModule, GroupsModule, WidgetModule],
  controllers: [DemoController],
  providers: [DemoSeeder, DemoBuilder, DemoRepository],
  exports: [DemoSeeder],
})
export class DemoModule {}
