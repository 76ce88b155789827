export { dashboardRoutes, type DashboardDeps } from './dashboard-routes.js';
