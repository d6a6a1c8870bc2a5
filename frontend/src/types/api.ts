// Names the features use for the API's types. Everything comes from
// api.gen.ts, generated from openapi.json (`npm run generate-client`, or
// `make frontend-client` to re-export it from the backend first): a backend
// rename becomes a TypeScript error here, not a broken page.
import type { components } from './api.gen';

type Schemas = components['schemas'];

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

export type ApiErrorBody = Schemas['ErrorBody'];
export type Commit = Schemas['CommitOut'];
export type Machine = Schemas['MachineOut'];
export type MachineRef = Schemas['MachineRef'];
export type Dataset = Schemas['DatasetOut'];
export type Configuration = Schemas['ConfigurationOut'];
export type Dimensions = Schemas['Dimensions'];
export type LatestRow = Schemas['LatestOut'];
export type Run = Schemas['RunOut'];
export type Queue = Schemas['QueueOut'];
export type WorkerTag = Schemas['WorkerTagOut'];
export type Health = Schemas['Health'];
export type SpeedExclusion = Schemas['SpeedExclusion'];
export type SpeedStats = Schemas['SpeedSummary'];
export type TradeoffPoint = Schemas['TradeoffPoint'];
export type Tradeoff = Schemas['TradeoffOut'];
export type HistoryPoint = Schemas['HistoryPoint'];
export type HistoryChange = Schemas['HistoryChange'];
export type History = Schemas['HistoryOut'];
export type CompareRow = Schemas['CompareRow'];
export type Compare = Schemas['CompareOut'];
export type CompareRule = Schemas['CompareRule'];
export type CompareAb = Schemas['CompareAb'];
export type CompareEvidence = NonNullable<CompareRow['evidence']>;
export type AbRequest = Schemas['AbRequestOut'];
export type AbRequestPage = Schemas['AbRequestPage'];
export type AbRequestIn = Schemas['AbRequestIn'];
export type ChangeSummaryLine = Schemas['ChangeSummaryLine'];
export type ChangeSummaryPage = Schemas['ChangeSummaryPage'];
export type BulkStatusIn = Schemas['BulkStatusIn'];
export type BulkStatusOut = Schemas['BulkStatusOut'];
export type TriggerRequest = Schemas['TriggerIn'];
export type TriggerResponse = Schemas['TriggerOut'];
export type Metric = CompareRow['metric'];
export type CodecSet = Schemas['CodecSetOut'];
export type CodecSeries = Schemas['CodecSeriesOut'];
export type Repository = Schemas['RepositoryOut'];
export type MachineCodecSet = Schemas['MachineCodecSetOut'];
export type Change = Schemas['ChangeOut'];
export type ChangeDetail = Schemas['ChangeDetail'];
export type ChangeStatusIn = Schemas['StatusIn'];
export type CostModel = Schemas['CostModelIn'];
export type Candidate = Schemas['CandidateIn'];
export type RecommendRequest = Schemas['RecommendIn'];
export type Recommendation = Schemas['RecommendationOut'];
export type RankedSetting = Schemas['RankedOut'];
export type GroupSizes = Schemas['GroupSizesIn'];
export type SettingSpeeds = Schemas['SpeedIn'];
export type GroupsRecommendation = Schemas['GroupsRecommendationOut'];
export type GroupRecommendation = Schemas['GroupRecommendationOut'];
export type BranchSizes = Schemas['BranchSizesOut'];
export type AdviseRequest = Schemas['AdviseIn'];
export type AdviseRun = Schemas['AdviseRunOut'];
export type AdviseRuns = Schemas['AdviseRunsOut'];
export type IoBreakdown = Schemas['IoBreakdownOut'];
export type IoSetting = Schemas['IoSetting'];
export type LossySweeps = Schemas['LossySweepsOut'];
export type LossySweep = Schemas['LossySweepOut'];
export type LossyColumns = Schemas['LossyColumnsOut'];
export type LossyPoint = Schemas['LossyPointOut'];
export type LossyHistory = Schemas['LossyHistoryOut'];
export type ArenaBoards = Schemas['ArenaBoardsOut'];
export type ArenaBoard = Schemas['ArenaBoardOut'];
export type ArenaResult = Schemas['ArenaResultOut'];
export type ArenaRun = Schemas['ArenaRunOut'];
export type SpeedRatio = Schemas['SpeedRatioOut'];
export type ArenaHistory = Schemas['ArenaHistoryOut'];
export type ArenaHistoryPoint = Schemas['ArenaHistoryPointOut'];
export type SpeedEvidence = Schemas['SpeedEvidenceOut'];
