package app

import "github.com/tofu-research/tofu/backend/models"

// ModelService reports which models can be used (the model picker, the connection banner,
// "Try the demo", Settings' "Test connection"); the work is backend/models'.
type ModelService struct{ *models.Service }

// ModelStatus is what the model picker and the connection banner show.
type ModelStatus = models.Status

// DemoProvider names the provider "Try the demo" adds for this run.
const DemoProvider = models.DemoProvider
