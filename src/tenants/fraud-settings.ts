import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsInt, IsObject, Max, Min, ValidateNested } from 'class-validator';
import { Optional } from '../common/validation/optional';

/** The tenant's `fraud` settings (docs/fraud.md), every signal present. */
export interface FraudSettings {
  self_referral: { enabled: boolean };
  duplicate_customer: { enabled: boolean };
  ip_burst: { enabled: boolean; leads_per_hour: number };
  disposable_email: { enabled: boolean };
  fast_conversion: { enabled: boolean; seconds: number };
  amount_outlier: { enabled: boolean; factor: number };
}

/** The settings as a tenant gives them: any signal, any field of it, may be left out. */
export type FraudSettingsInput = { [K in keyof FraudSettings]?: Partial<FraudSettings[K]> };

export const DEFAULT_FRAUD_SETTINGS: FraudSettings = Object.freeze({
  self_referral: { enabled: true },
  duplicate_customer: { enabled: true },
  ip_burst: { enabled: true, leads_per_hour: 10 },
  disposable_email: { enabled: true },
  fast_conversion: { enabled: false, seconds: 30 },
  amount_outlier: { enabled: false, factor: 10 },
});

/** Every signal and field, the given ones over the defaults. */
export function withFraudDefaults(input: FraudSettingsInput | null | undefined): FraudSettings {
  const given = input ?? {};
  const out = {} as Record<string, unknown>;
  for (const key of Object.keys(DEFAULT_FRAUD_SETTINGS) as (keyof FraudSettings)[]) {
    const fields = Object.entries(given[key] ?? {}).filter(([, value]) => value !== undefined);
    out[key] = { ...DEFAULT_FRAUD_SETTINGS[key], ...Object.fromEntries(fields) };
  }
  return out as unknown as FraudSettings;
}

export const DEFAULT_ATTRIBUTION_WINDOW_DAYS = 90;

class SignalSwitchDto {
  /** Whether the signal is evaluated. @example true */
  @Optional() @IsBoolean() enabled?: boolean;
}

class IpBurstDto extends SignalSwitchDto {
  /** More leads than this from one IP for one partner within an hour fire it. @example 10 */
  @Optional() @IsInt() @Min(1) @Max(100000) leads_per_hour?: number;
}

class FastConversionDto extends SignalSwitchDto {
  /** A conversion within this many seconds of the click its ref carries fires it. @example 30 */
  @Optional() @IsInt() @Min(1) @Max(86400 * 30) seconds?: number;
}

class AmountOutlierDto extends SignalSwitchDto {
  /** An amount above this many times the median of the last 1000 conversions fires it. @example 10 */
  @Optional() @IsInt() @Min(2) @Max(1000000) factor?: number;
}

/** The risk-signal settings (docs/fraud.md); a signal or field left out takes its default. */
export class FraudSettingsDto {
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => SignalSwitchDto)
  self_referral?: SignalSwitchDto;
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => SignalSwitchDto)
  duplicate_customer?: SignalSwitchDto;
  @Optional() @IsObject() @ValidateNested() @Type(() => IpBurstDto) ip_burst?: IpBurstDto;
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => SignalSwitchDto)
  disposable_email?: SignalSwitchDto;
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => FastConversionDto)
  fast_conversion?: FastConversionDto;
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => AmountOutlierDto)
  amount_outlier?: AmountOutlierDto;
}

/** The settings as the tenant object shows them, every signal present. */
export class FraudSettingsResponse {
  @ApiProperty({ example: { enabled: true } })
  self_referral: { enabled: boolean };
  @ApiProperty({ example: { enabled: true } })
  duplicate_customer: { enabled: boolean };
  @ApiProperty({ example: { enabled: true, leads_per_hour: 10 } })
  ip_burst: { enabled: boolean; leads_per_hour: number };
  @ApiProperty({ example: { enabled: true } })
  disposable_email: { enabled: boolean };
  @ApiProperty({ example: { enabled: false, seconds: 30 } })
  fast_conversion: { enabled: boolean; seconds: number };
  @ApiProperty({ example: { enabled: false, factor: 10 } })
  amount_outlier: { enabled: boolean; factor: number };
}
