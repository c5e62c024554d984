/**
 * `PUT /api/notifications`'s body (src/domain/notifications.ts), apart from the rest of that
 * module: its schema needs zod and the sign-up's e-mail rule, and the pages' router imports the
 * e-mails' paths from there, in the forms' first JavaScript, which carries neither (zod and
 * registration.ts are loaded at the form's first input: docs/performance.md).
 */
import * as z from 'zod/mini';
import { emailSchema } from './registration';

/** Every field optional, an absent one keeps its value. */
export const notificationsSchema = z.strictObject({
  email: z.optional(emailSchema),
  weekly_summary: z.optional(z.boolean()),
  client_alerts: z.optional(z.boolean()),
  review_digest: z.optional(z.boolean()),
});
export type NotificationsInput = z.output<typeof notificationsSchema>;
