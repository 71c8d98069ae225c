import { Global, Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { EmbedTokenService } from './embed-token.service';

/** Token issuing and checking shared by the guard and the popup. */
@Global()
@Module({
  imports: [JwtModule.register({})],
  providers: [EmbedTokenService],
  exports: [EmbedTokenService],
})
export class AuthModule {}
