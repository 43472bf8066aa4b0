// Package learn defines what a learner is: something that turns an encoded
// training Dataset into a linear.Model. The HMM, the averaged perceptron and
// the CRF live in subpackages and are registered by name in package builtin.
package learn
