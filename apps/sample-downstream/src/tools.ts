/**
 * Names of the tools this sample serves at GET /gw/schema. Gateway tests and
 * demos rely on them; README.md lists what each one does.
 */
export const SAMPLE_TOOLS = {
  listCustomers: 'list_customers',
  getCustomer: 'get_customer',
  createCustomer: 'create_customer',
  updateCustomerContact: 'update_customer_contact',
  listOrders: 'list_orders',
  getOrder: 'get_order',
  quoteOrder: 'quote_order',
  placeOrder: 'place_order',
  cancelOrder: 'cancel_order',
  searchProducts: 'search_products',
  getProduct: 'get_product',
  // Annotation form: named after the controller method.
  stockLevel: 'stockLevel',
  restockProduct: 'restockProduct',
  salesReport: 'salesReport',
} as const;

export type SampleToolName = (typeof SAMPLE_TOOLS)[keyof typeof SAMPLE_TOOLS];
