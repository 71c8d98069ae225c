// Runs the @nestjs/swagger compiler plugin under ts-jest, with the options nest-cli.json gives it,
// so the OpenAPI document in tests is the one `nest build` produces. `version` is part of
// ts-jest's cache key: raise it when the options change.
const transformer = require('@nestjs/swagger/plugin');
const nestCli = require('../../nest-cli.json');

const options = nestCli.compilerOptions.plugins.find((p) => p.name === '@nestjs/swagger').options;

module.exports.name = 'nestjs-swagger-transformer';
module.exports.version = 2;
module.exports.factory = (cs) => transformer.before(options, cs.program);
