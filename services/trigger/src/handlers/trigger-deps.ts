/** What the trigger service's handlers need, built once by service.ts. */
import type { TriggerControl } from '../control/trigger-control.ts';

export interface TriggerHandlerDeps {
  control: TriggerControl;
}
