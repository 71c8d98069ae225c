import {
  Body,
  Controller,
  createParamDecorator,
  Get,
  Header,
  HttpCode,
  Ip,
  Param,
  Post,
  Query,
  Req,
  UseGuards,
} from '@nestjs/common';
import { routeArgs, routeMetadata } from './route-metadata';

const Custom = createParamDecorator((data: string) => data);
class Guard {}

@Controller('things')
class Things {
  @Get(':id')
  @HttpCode(203)
  @Header('Cache-Control', 'no-store')
  read(
    @Param('id') _id: string,
    @Query() _q: unknown,
    @Ip() _ip: string,
    @Custom('c') _c: unknown,
  ) {}

  @Post()
  @UseGuards(Guard)
  write(@Body() _body: unknown, @Req() _req: unknown) {}
}

/** The keys are found by probing Nest's public decorators; a route's own read the same way. */
describe('route metadata', () => {
  it('reads what the decorators declared on a route', () => {
    const { read, write } = Things.prototype;
    expect(routeMetadata('path', Things)).toBe('things');
    expect(routeMetadata('path', read)).toBe(':id');
    expect(routeMetadata('httpCode', read)).toBe(203);
    expect(routeMetadata('headers', read)).toEqual([{ name: 'Cache-Control', value: 'no-store' }]);
    expect(routeMetadata('guards', write)).toEqual([Guard]);
    expect(routeMetadata('httpCode', write)).toBeUndefined();
  });

  it('tells the argument decorators apart', () => {
    const kinds = (name: string) =>
      routeArgs(Things, name)
        .sort((a, b) => a.index - b.index)
        .map(({ index, kind, data }) => ({ index, kind, data }));
    expect(kinds('read')).toEqual([
      { index: 0, kind: 'param', data: 'id' },
      { index: 1, kind: 'query', data: undefined },
      { index: 2, kind: 'ip', data: undefined },
      { index: 3, kind: 'custom', data: 'c' },
    ]);
    expect(kinds('write').map(({ kind }) => kind)).toEqual(['body', 'req']);
  });
});
