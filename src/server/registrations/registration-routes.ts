import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { registrationSchema } from '../../domain/registration';
import type { RegistrationRepository } from './registration-repository';

export interface RegistrationRoutesOptions {
  repository: RegistrationRepository;
  now: () => Date;
  rateLimitPerMinute: number;
}

/** POST /api/external-register: SPEC §7's call, validated with the form's own schema. */
export const registrationRoutes: FastifyPluginAsyncZod<RegistrationRoutesOptions> = async (
  app,
  { repository, now, rateLimitPerMinute },
) => {
  app.post(
    '/external-register',
    {
      schema: { body: registrationSchema },
      config: { rateLimit: { max: rateLimitPerMinute, timeWindow: 60_000 } },
    },
    async (request, reply) => {
      const { id } = await repository.register(request.body, now());
      // A repeat within 24 hours also answers 201 with the first id: a different status would
      // tell anyone who types a stranger's number whether that number signed up today.
      return reply.code(201).send({ id });
    },
  );
};
