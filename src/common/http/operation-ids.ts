/**
 * The OpenAPI document's operation ids are `<Controller>_<method>`, Nest's default, and clients
 * generated from the document name their methods after them. A controller renamed for the code's
 * sake (docs/architecture.md, "Words") keeps the ids it was published with, so that a rename
 * inside the service breaks no client.
 */
export const PUBLISHED_CONTROLLER_NAMES: Readonly<Record<string, string>> = {
  MembersController: 'UsersController',
  MemberListAdminController: 'PartnersAdminController',
  MembersCsvController: 'PartnersCsvController',
  MembersPagesController: 'PartnersPagesController',
  MemberBanPagesController: 'PartnerBanPagesController',
};

export function operationId(controllerKey: string, methodKey: string): string {
  return `${PUBLISHED_CONTROLLER_NAMES[controllerKey] ?? controllerKey}_${methodKey}`;
}
