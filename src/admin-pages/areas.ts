/**
 * The areas of an organisation's pages, in the order of the navigation. An area is a folder with
 * its controller and views (e.g. `bonuses/`); adding one is a folder, a line here and its
 * controller in AdminPagesModule.
 */
export const ORG_AREAS = [
  { path: 'integration', label: 'Integration' },
  { path: 'bonuses', label: 'Bonuses' },
  { path: 'audit-log', label: 'Audit log' },
] as const;

export type OrgArea = (typeof ORG_AREAS)[number]['path'];
