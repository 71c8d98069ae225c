/** The popup's query (seed 4.4): validated by hand so failures render an HTML page, not JSON. */
export interface AuthorizeParams {
  client_id: string;
  response_type: 'code';
  scope: 'profile:read';
  state: string;
  popup: '1';
}

/** The five parameters if they are exactly as SPEC 5 wants them, else a list of what is wrong. */
export function parseAuthorizeParams(
  source: Record<string, unknown>,
): { params: AuthorizeParams } | { errors: string[] } {
  const errors: string[] = [];
  const str = (name: string) => (typeof source[name] === 'string' ? source[name] : undefined);
  const clientId = str('client_id');
  const state = str('state');
  if (!clientId || !/^[a-z0-9][a-z0-9-]{1,62}$/.test(clientId))
    errors.push('client_id must be a tenant slug');
  if (str('response_type') !== 'code') errors.push('response_type must be "code"');
  if (str('scope') !== 'profile:read') errors.push('scope must be "profile:read"');
  if (!state || state.length > 512) errors.push('state must be 1 to 512 characters');
  if (str('popup') !== '1') errors.push('popup must be "1"');
  if (errors.length) return { errors };
  return {
    params: {
      client_id: clientId!,
      response_type: 'code',
      scope: 'profile:read',
      state: state!,
      popup: '1',
    },
  };
}

export function authorizeQuery(params: AuthorizeParams): string {
  return new URLSearchParams({ ...params }).toString();
}
