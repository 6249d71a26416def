// Each analytics route is written once: the query object the route parses with is, key for key, the
// parameters of its OpenAPI operation, and its answer schema is the operation's 200 body. Checked
// from both sides: the document's schemas are the router's zod schemas rendered, and what the
// document allows (enum values, patterns, ranges, required) is what the parser accepts.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../common/errors.ts';
import { createOpenApiRegistry } from '../../common/openapi/registry.ts';
import { estimateAnswerSchema, listingEstimateAnswerSchema } from '../../analytics-api/answers/estimate.ts';
import { heatmapAnswerSchema } from '../../analytics-api/answers/heatmap.ts';
import {
  marketShareAnswerSchema,
  seasonalityAnswerSchema,
  velocityAnswerSchema,
} from '../../analytics-api/answers/market.ts';
import { pricingAnswerSchema } from '../../analytics-api/answers/pricing.ts';
import {
  estimateQuery,
  listingEstimateQuery,
  parseEstimateParams,
  parseListingEstimateParams,
} from '../../analytics-api/estimate-params.ts';
import { analyticsRoutes } from '../../analytics-api/router.ts';
import { registerRoutes } from '../../common/http/route.ts';
import {
  heatmapQuery,
  parseHeatmapParams,
  parsePricingParams,
  parseSeasonalityParams,
  pricingQuery,
  seasonalityQuery,
} from '../../analytics-api/params.ts';

type Query = Record<string, unknown>;
interface Route {
  path: string;
  query: z.ZodObject;
  parse: (query: Query) => unknown;
  answer: z.ZodType;
  /** A valid query holding every required parameter. */
  valid: Query;
}

const routes: Route[] = [
  {
    path: '/analytics/pricing',
    query: pricingQuery,
    parse: parsePricingParams,
    answer: pricingAnswerSchema,
    valid: { city: 'arusha', type: 'house' },
  },
  {
    path: '/analytics/heatmap',
    query: heatmapQuery,
    parse: parseHeatmapParams,
    answer: heatmapAnswerSchema,
    valid: { bounds: '39.2,-6.9,39.3,-6.7' },
  },
  {
    path: '/analytics/velocity',
    query: pricingQuery,
    parse: parsePricingParams,
    answer: velocityAnswerSchema,
    valid: { city: 'arusha', type: 'house' },
  },
  {
    path: '/analytics/seasonality',
    query: seasonalityQuery,
    parse: parseSeasonalityParams,
    answer: seasonalityAnswerSchema,
    valid: { city: 'arusha', type: 'house' },
  },
  {
    path: '/analytics/market-share',
    query: pricingQuery,
    parse: parsePricingParams,
    answer: marketShareAnswerSchema,
    valid: { city: 'arusha', type: 'house' },
  },
  {
    path: '/analytics/estimate',
    query: estimateQuery,
    parse: parseEstimateParams,
    answer: estimateAnswerSchema,
    valid: { lat: '-6.8', lng: '39.28', type: 'house' },
  },
  {
    path: '/listings/{listing_id}/estimate',
    query: listingEstimateQuery,
    parse: parseListingEstimateParams,
    answer: listingEstimateAnswerSchema,
    valid: {},
  },
];

interface DocParameter {
  name: string;
  in: string;
  required: boolean;
  description?: string;
  schema: {
    type?: string;
    enum?: string[];
    pattern?: string;
    minimum?: number;
    maximum?: number;
    description?: string;
  };
}

const registry = createOpenApiRegistry({ title: 'analytics', version: '1' });
registerRoutes(registry, analyticsRoutes);
const paths = registry.document().paths as Record<
  string,
  {
    get: {
      parameters: DocParameter[];
      responses: { 200: { content: { 'application/json': { schema: unknown } } } };
    };
  }
>;

const rendered = (schema: z.ZodType, io: 'input' | 'output') => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    reused: 'inline',
  }) as Record<string, unknown>;
  return rest;
};

/** The parameters a refusal names, or undefined when the query is accepted. */
function refused(route: Route, query: Query): string[] | undefined {
  try {
    route.parse(query);
    return undefined;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    expect(error.status).toBe(400);
    const details = error.options.details as { parameter: string }[];
    return details.map((d) => d.parameter);
  }
}

describe.each(routes)('$path', (route) => {
  const operation = paths[route.path]!.get;
  const documented = operation.parameters.filter((p) => p.in === 'query');

  it('happy: documents the keys of the query object the route parses with, each rendered from its zod schema', () => {
    expect(documented.map((p) => p.name)).toEqual(Object.keys(route.query.shape));
    for (const parameter of documented) {
      const { description, ...schema } = rendered(route.query.shape[parameter.name]!, 'input');
      expect(parameter.schema, parameter.name).toEqual(schema);
      expect(parameter.description, parameter.name).toBe(description);
    }
  });

  it("happy: documents the route's answer schema as its 200 body", () => {
    expect(operation.responses[200].content['application/json'].schema).toEqual(
      rendered(route.answer, 'output'),
    );
  });

  it('error: a parameter the document requires is refused when absent, naming it; the others may be left out', () => {
    expect(refused(route, route.valid)).toBeUndefined();
    for (const parameter of documented) {
      const { [parameter.name]: _left, ...rest } = route.valid;
      expect(refused(route, rest), parameter.name).toEqual(parameter.required ? [parameter.name] : undefined);
    }
  });

  it('edge: accepts every documented enum value and range end, refuses what lies outside, naming the parameter', () => {
    for (const { name, schema } of documented) {
      const withValue = (value: string) => refused(route, { ...route.valid, [name]: value });
      for (const value of schema.enum ?? []) expect(withValue(value), `${name}=${value}`).toBeUndefined();
      // test_mode is documented as true|false but read leniently: only true opts in.
      if (schema.enum && name !== 'test_mode') expect(withValue('not-a-value'), name).toEqual([name]);
      if (schema.minimum !== undefined && schema.maximum !== undefined) {
        for (const value of [schema.minimum, schema.maximum]) {
          expect(withValue(String(value)), `${name}=${value}`).toBeUndefined();
        }
        for (const value of [schema.minimum - 1, schema.maximum + 1]) {
          expect(withValue(String(value)), `${name}=${value}`).toEqual([name]);
        }
        if (schema.type === 'integer') expect(withValue(`${schema.minimum}.5`), name).toEqual([name]);
      }
    }
  });

  it('edge: a value matches the documented pattern exactly when the parser reads it (the box’s other rules aside)', () => {
    const candidates: Record<string, string[]> = {
      period: [
        '1970-Q4',
        '1971-Q1',
        '2024-Q3',
        '2100-Q4',
        '2101-Q1',
        '2024-Q0',
        '2024-Q5',
        '2024-q1',
        '24-Q1',
      ],
      months: ['0', '1', '01', '001', '0001', '24', '60', '060', '61', '100', '1.5', '-1', ''],
      end: ['1970-12', '1971-01', '2024-06', '2100-12', '2101-01', '2024-00', '2024-13', '2024-6', ''],
      bounds: ['39.2,-6.9,39.3,-6.7', ' 39.1 , -6.9 ,39.3,-6.7', '39.2,-6.9,39.3', '1e1,0,2e1,1', 'a,b,c,d'],
    };
    for (const { name, schema } of documented.filter((p) => p.schema.pattern)) {
      const pattern = new RegExp(schema.pattern!);
      for (const value of candidates[name] ?? []) {
        const problems = refused(route, { ...route.valid, [name]: value });
        expect(problems, `${name}=${value}`).toEqual(pattern.test(value) ? undefined : [name]);
      }
    }
  });
});
