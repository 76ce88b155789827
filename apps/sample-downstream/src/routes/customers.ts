import { withAgentTool } from '@tollgate/host-kit';
import { Hono } from 'hono';
import { z } from 'zod';
import type { Store } from '../data/store.js';
import { ApiError, handleError, notFound } from '../http/errors.js';
import { parseInput, readJson } from '../http/validate.js';
import { SAMPLE_TOOLS } from '../tools.js';

const customerRoute = z.object({ id: z.coerce.number().int().positive().describe('Customer id') });

const listQuery = z.object({
  search: z.string().optional().describe('Case-insensitive match on name, email or city'),
  limit: z.coerce.number().int().min(1).max(100).default(25).describe('At most this many customers (1-100)'),
});

const newCustomer = z.object({
  name: z.string().trim().min(1).describe('Full name'),
  email: z.email().describe('Contact email address'),
  phone: z.string().trim().min(5).optional().describe('Phone number, international format'),
  city: z.string().trim().min(1).optional(),
});

const contactChange = z
  .object({
    email: z.email().optional().describe('New email address'),
    phone: z.string().trim().min(5).optional().describe('New phone number'),
    city: z.string().trim().min(1).optional().describe('New city'),
  })
  .refine((change) => Object.keys(change).length > 0, 'Give at least one of email, phone, city');

/** `/customers`: mounted with app.route. Customers carry personal data (email, phone). */
export function customerRoutes(store: Store): Hono {
  const customers = new Hono();
  // The group owns its error mapping so it works mounted anywhere.
  customers.onError(handleError);

  customers.get(
    '/',
    withAgentTool({
      name: SAMPLE_TOOLS.listCustomers,
      description: 'List customers with their contact details, optionally filtered by a search term.',
      category: 'customers',
      requiredScopes: ['customers:read'],
      input: { query: listQuery },
    }),
    (c) => {
      const { search, limit } = parseInput(listQuery, c.req.query(), 'query');
      const term = search?.toLowerCase();
      const matches = term
        ? store.customers.filter((x) => [x.name, x.email, x.city].some((field) => field.toLowerCase().includes(term)))
        : store.customers;
      return c.json({ total: matches.length, customers: matches.slice(0, limit) });
    },
  );

  customers.get(
    '/:id{[0-9]+}',
    withAgentTool({
      name: SAMPLE_TOOLS.getCustomer,
      description: 'Get one customer by id, including email and phone number.',
      category: 'customers',
      requiredScopes: ['customers:read'],
      input: { route: customerRoute },
    }),
    (c) => {
      const { id } = parseInput(customerRoute, c.req.param(), 'route');
      const customer = store.customer(id);
      if (!customer) throw notFound(`Customer ${id}`);
      return c.json(customer);
    },
  );

  customers.post(
    '/',
    withAgentTool({
      name: SAMPLE_TOOLS.createCustomer,
      description: 'Create a customer. Returns the new customer with its id.',
      allowWrite: true,
      category: 'customers',
      requiredScopes: ['customers:write'],
      input: { body: newCustomer },
    }),
    async (c) => {
      const fields = parseInput(newCustomer, await readJson(c), 'body');
      if (store.customers.some((x) => x.email === fields.email)) {
        throw new ApiError(409, 'conflict', `A customer with email ${fields.email} already exists`);
      }
      const customer = store.addCustomer({ phone: '', city: '', ...fields });
      return c.json(customer, 201);
    },
  );

  // PUT and PATCH share one handler (both merge the given fields), so the
  // tool names the verb agents should use.
  customers.on(
    ['PUT', 'PATCH'],
    '/:id{[0-9]+}',
    withAgentTool({
      name: SAMPLE_TOOLS.updateCustomerContact,
      description: "Change a customer's email, phone number or city. Fields left out stay as they are.",
      allowWrite: true,
      category: 'customers',
      requiredScopes: ['customers:write'],
      httpMethod: 'PATCH',
      input: { route: customerRoute, body: contactChange },
    }),
    async (c) => {
      const { id } = parseInput(customerRoute, c.req.param(), 'route');
      const change = parseInput(contactChange, await readJson(c), 'body');
      const customer = store.customer(id);
      if (!customer) throw notFound(`Customer ${id}`);
      Object.assign(customer, change);
      return c.json(customer);
    },
  );

  return customers;
}
