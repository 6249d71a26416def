// Every table the code writes or reads by module, for code that handles them all
// (test/integration/warehouse-tables.test.ts compares each with the server's columns).
import {
  cellQuarterStatsTable,
  neighbourhoodQuarterPricesTable,
  neighbourhoodQuarterStatsTable,
} from './aggregates.ts';
import { apiKeyUsageTable } from './api-key-usage.ts';
import { estimateAccuracyTable } from './estimate-accuracy.ts';
import { imageChecksTable } from './image-checks.ts';
import { keyAuditEventsTable } from './key-audit-events.ts';
import { listingStatesTable, listingStatusChangesTable } from './lifecycle.ts';
import { listingImageReusesTable, listingImagesTable } from './listing-images.ts';
import { listingLookupTable } from './listing-lookup.ts';
import { listingsTable } from './listings.ts';
import { neighbourhoodQuarterPriceSummariesTable } from './price-summaries.ts';
import { quarantineTable } from './quarantine.ts';
import {
  accountAreaStockTable,
  accountMonthFlowsTable,
  accountQuarterFlowsTable,
  cityMonthPricesTable,
  marketCohortDaysTable,
  marketDailyFlowsTable,
  marketExitDaysTable,
} from './market-flows.ts';
import { rentComparablesTable } from './rent-comparables.ts';
import type { TableRef } from './table.ts';
import { viewEventsTable } from './view-events.ts';
import { webhookDeliveriesTable } from './webhook-deliveries.ts';

export const warehouseTables: readonly TableRef[] = [
  listingsTable,
  listingLookupTable,
  viewEventsTable,
  quarantineTable,
  imageChecksTable,
  listingImagesTable,
  listingImageReusesTable,
  webhookDeliveriesTable,
  apiKeyUsageTable,
  keyAuditEventsTable,
  neighbourhoodQuarterStatsTable,
  cellQuarterStatsTable,
  neighbourhoodQuarterPricesTable,
  neighbourhoodQuarterPriceSummariesTable,
  listingStatusChangesTable,
  listingStatesTable,
  marketDailyFlowsTable,
  marketExitDaysTable,
  marketCohortDaysTable,
  accountQuarterFlowsTable,
  accountAreaStockTable,
  accountMonthFlowsTable,
  cityMonthPricesTable,
  rentComparablesTable,
  estimateAccuracyTable,
];
