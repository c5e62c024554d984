import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { arForm } from '../../domain/catalogue/form';
import { registrationSchema } from '../../domain/registration';
import { signUp, signUpRateLimit, type SignUpOptions } from './sign-up';

/**
 * POST /api/external-register, the pages' one call (docs/product.md §7), validated with the
 * form's own schema; and GET /api/altcha-challenge when ALTCHA is on.
 */
export const registrationRoutes: FastifyPluginAsyncZod<SignUpOptions> = async (app, options) => {
  const { proofOfWork } = options;
  const rateLimit = signUpRateLimit(options.rateLimitPerMinute);

  if (proofOfWork !== undefined) {
    app.get('/altcha-challenge', { config: { rateLimit } }, async () => proofOfWork.challenge());
  }

  app.post(
    '/external-register',
    {
      schema: { body: registrationSchema },
      config: { rateLimit },
    },
    async (request, reply) => {
      const result = await signUp(request.body, 'api', options, request);
      if (result.kind === 'unsolved') return reply.code(400).send({ error: arForm.errorChallenge });
      // A repeat within 24 hours is stored too and answers 201 with the first id: a different
      // answer, or a faster one, would tell anyone who types a stranger's number whether that
      // number signed up today.
      return reply.code(201).send({ id: result.id });
    },
  );
};
