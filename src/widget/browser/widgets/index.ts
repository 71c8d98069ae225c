import type { Widget } from '../context';
import { application } from './application';
import { bonuses } from './bonuses';
import { cabinet } from './cabinet';
import { leadForm } from './lead-form';
import { leads } from './leads';
import { partners } from './partners';
import { referralLink } from './referral-link';
import { referralTree } from './referral-tree';

/** Every widget by its `data-service-widget` name (docs/embedding.md §11), in the docs' order. */
export const WIDGETS: Record<string, Widget | undefined> = {
  cabinet,
  bonuses,
  leads,
  'referral-tree': referralTree,
  partners,
  'referral-link': referralLink,
  'lead-form': leadForm,
  application,
};

/** The widgets that show a member's data and so need `data-user-id`. */
export const needsUser = (name: string): boolean =>
  name !== 'referral-link' && name !== 'lead-form' && name !== 'application';
