/** What the script adds to the page: `window.ServiceWidgets` and its events. */

interface ServiceWidgetsApi {
  /** Mounts every `[data-service-widget]` of the document not mounted yet. */
  scan(): void;
  mount(el: Element): void;
  /** Fetches a read widget's data again. */
  reload(el: Element): void;
}

interface LeadEventDetail {
  tenant: string;
  lead_id: string;
}

interface Window {
  ServiceWidgets?: ServiceWidgetsApi;
}

interface WindowEventMap {
  'service-widget:lead': CustomEvent<LeadEventDetail>;
  /** A partner signed in through the popup (popup.ts): the tenant's widgets read again. */
  'service-widget:signed-in': CustomEvent<{ tenant: string }>;
}
