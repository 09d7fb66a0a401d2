/*
Copyright 2026 The srscale authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1

// Names of the objects the operator creates for a StarRocksCluster. They are
// the upstream operator's names, so existing clusters are adopted, not duplicated.

// FeStatefulSetName is the FE StatefulSet.
func (c *StarRocksCluster) FeStatefulSetName() string { return c.Name + "-fe" }

// FeServiceName is the FE client Service.
func (c *StarRocksCluster) FeServiceName() string { return c.Name + "-fe-service" }

// FeSearchServiceName is the headless FE Service that gives each FE pod a DNS name.
func (c *StarRocksCluster) FeSearchServiceName() string { return c.Name + "-fe-search" }

// BeStatefulSetName is the BE StatefulSet.
func (c *StarRocksCluster) BeStatefulSetName() string { return c.Name + "-be" }

// BeServiceName is the BE client Service.
func (c *StarRocksCluster) BeServiceName() string { return c.Name + "-be-service" }

// BeSearchServiceName is the headless BE Service.
func (c *StarRocksCluster) BeSearchServiceName() string { return c.Name + "-be-search" }

// CnStatefulSetName is the CN StatefulSet.
func (c *StarRocksCluster) CnStatefulSetName() string { return c.Name + "-cn" }

// CnServiceName is the CN client Service.
func (c *StarRocksCluster) CnServiceName() string { return c.Name + "-cn-service" }

// CnSearchServiceName is the headless CN Service.
func (c *StarRocksCluster) CnSearchServiceName() string { return c.Name + "-cn-search" }

// CnAutoscalerName is the HorizontalPodAutoscaler of CN.
func (c *StarRocksCluster) CnAutoscalerName() string { return c.Name + "-cn-autoscaler" }

// The PodDisruptionBudgets are ours alone (the upstream operator makes none):
// <StatefulSet>-pdb, as charts commonly name them.

// FeDisruptionBudgetName is the PodDisruptionBudget of FE.
func (c *StarRocksCluster) FeDisruptionBudgetName() string { return c.Name + "-fe-pdb" }

// BeDisruptionBudgetName is the PodDisruptionBudget of BE.
func (c *StarRocksCluster) BeDisruptionBudgetName() string { return c.Name + "-be-pdb" }

// CnDisruptionBudgetName is the PodDisruptionBudget of CN.
func (c *StarRocksCluster) CnDisruptionBudgetName() string { return c.Name + "-cn-pdb" }

// FeProxyConfigMapName is the ConfigMap holding the FE proxy's nginx.conf.
func (c *StarRocksCluster) FeProxyConfigMapName() string { return c.Name + "-fe-proxy" }

// FeProxyDeploymentName is the FE proxy Deployment.
func (c *StarRocksCluster) FeProxyDeploymentName() string { return c.Name + "-fe-proxy" }

// FeProxyServiceName is the FE proxy Service.
func (c *StarRocksCluster) FeProxyServiceName() string { return c.Name + "-fe-proxy-service" }
